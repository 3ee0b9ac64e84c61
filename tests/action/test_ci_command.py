"""`harness ci`'s input handling: what the action's inputs may hold, refused in one line before any run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.ci import outputs_text, words
from harness.reports.junit import Tally

HARNESS = str(Path(sys.executable).parent / "harness")


def test_an_input_list_is_split_on_spaces_and_line_breaks() -> None:
    assert words(" builtin\n haystack:builtin  ") == ["builtin", "haystack:builtin"]


def test_outputs_leave_the_pass_rate_empty_when_no_case_ran() -> None:
    text = outputs_text(Path("r"), Path("r/junit.xml"), Tally(tests=2, skipped=2), 0)
    assert text.splitlines() == ["reports=r", "junit=r/junit.xml", "pass-rate=", "regressions=0"]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--modes", "bm25 bm26"], "unknown mode bm26"),
        (["--summary", ""], "--summary .: a folder, not a file"),
        (["--out", "a\nb"], "--out: a line break"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    done = subprocess.run(
        [HARNESS, "ci", "--no-check-baseline", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HARNESS_STATE_DIR": str(tmp_path / "state")},
    )
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "harness-reports").exists()
