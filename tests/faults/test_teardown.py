"""A drop of what a run created that fails is reported and ends the run non-zero (exit 3, one
line naming what was left), never swallowed; the finished part is reported as incomplete. A lost
backend is already reported by its results (exit 3) and is not reported twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.embedded import EmbeddedIndex
from tests.faults.helpers import reports, write_suite

CONVERSATION = Path(__file__).parents[1] / "conversation" / "acervo"


def _refuse(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    def drop(_self: EmbeddedIndex) -> None:
        raise error

    monkeypatch.setattr(EmbeddedIndex, "drop", drop)


@pytest.mark.parametrize(
    ("suite", "what"),
    [
        (f"acervo:{CONVERSATION}", "could not drop the data of conversation "),
        ("code-tasks:builtin", "could not drop the data of code tasks 'harness' on embedded"),
        ("SUITE", "could not drop the data of suite "),
    ],
    ids=["conversation", "code-tasks", "beliefs"],
)
def test_a_failed_drop_ends_the_run_with_exit_3(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite: str, what: str
) -> None:
    if suite == "SUITE":
        suite = str(write_suite(tmp_path / "suite", 3))
    _refuse(monkeypatch, RuntimeError("timed out after 16 MB"))
    code, _, err = cli("run", "-s", suite, "-m", "bm25", "--out", str(tmp_path / "out"))
    assert "Traceback" not in err, err
    (line,) = [line for line in err.splitlines() if line.startswith("harness:")]
    assert code == 3, err
    assert what in line, line
    assert ": timed out after 16 MB (" in line, line
    assert reports(tmp_path / "out", "*-incomplete-*.json"), "the finished part is reported as incomplete"
    assert not list((tmp_path / "out").glob("*-latest.json")), "never -latest"


def test_a_lost_backend_is_not_reported_twice(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _refuse(monkeypatch, ConnectionResetError("connection reset by peer"))
    code, _, err = cli("run", "-s", f"acervo:{CONVERSATION}", "-m", "bm25", "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "could not drop" not in err
