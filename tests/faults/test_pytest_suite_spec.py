"""`pytest --harness-suite SPEC` runs the suite the user named from any working directory: each item
carries the spec it was given (an absolute folder, `tenure:/abs/dir`), not the suite's display name."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.faults.helpers import run, write_suite
from tests.suites.tenure_fixture import belief, write_tenure

ITEMS = """
from harness.pytest_plugin.items import ItemParam


def test_item(harness_item: ItemParam, harness_check) -> None:
    harness_check(harness_item)
"""


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
def test_an_absolute_suite_spec_runs_from_another_directory(tmp_path: Path, kind: str) -> None:
    data = tmp_path / "data"
    spec = str(write_suite(data / "mine", 2)) if kind == "folder" else f"tenure:{_tenure(data / 'fixtures')}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "test_items.py").write_text(ITEMS, encoding="utf-8")
    in_pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--harness-backend", "embedded"]
    result = run([*in_pytest, "--harness-suite", spec], elsewhere, 300)
    expected = 2 if kind == "folder" else 1
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert f"{expected} passed" in result.stdout, result.stdout[-3000:]
