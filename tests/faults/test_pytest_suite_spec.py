"""`pytest --harness-suite SPEC` runs the suite the user named from any working directory: each item
carries the spec it was given (an absolute folder, `tenure:/abs/dir`), not the suite's display name.
pytest runs in this process, in a folder of its own (`pytester.path`), not the suite's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.helpers import write_suite
from tests.plugin.inner import ITEM_TESTS, inner_pytest
from tests.suites.tenure_fixture import belief, write_tenure


def _tenure(folder: Path) -> Path:
    case = {
        "caseId": "alias-postgres",
        "description": "An alias names its belief.",
        "scope": ["domain:code"],
        "query": "is postgres slow today",
        "expect": {"relevantBeliefs": {"shouldOnlyInclude": ["b-postgres"]}},
    }
    return write_tenure(folder, seed=[belief("b-postgres", aliases=["postgres"])], static=[case], sessions=False)


@pytest.mark.parametrize("kind", ["folder", "tenure"])
def test_an_absolute_suite_spec_runs_from_another_directory(
    tmp_path: Path, pytester: pytest.Pytester, kind: str
) -> None:
    data = tmp_path / "data"
    spec = str(write_suite(data / "mine", 2)) if kind == "folder" else f"tenure:{_tenure(data / 'fixtures')}"
    pytester.makepyfile(test_items=ITEM_TESTS)
    assert not pytester.path.is_relative_to(tmp_path)  # another directory than the suite's
    result = inner_pytest(pytester, "-q", "--harness-backend", "embedded", "--harness-suite", spec)
    expected = 2 if kind == "folder" else 1
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert f"{expected} passed" in result.stdout, result.stdout[-3000:]
