"""`harness ... | head`: a reader that goes away before the command is done changes nothing but
what reaches it. The run finishes (every report written), says on stderr what it would have,
and exits with its own code; no traceback, no "Exception ignored"."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.faults.helpers import HARNESS, env


def _closed_stdout(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the console script with stdout a pipe whose reading end is already closed."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [str(HARNESS), *args], cwd=cwd, env=env(), stdout=write, stderr=subprocess.PIPE, text=True, timeout=300
        )
    finally:
        os.close(write)


def _clean(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    assert "Exception ignored" not in stderr, stderr
    assert "BrokenPipe" not in stderr, stderr


def test_a_run_of_two_kinds_writes_both_reports_and_exits_0(tmp_path: Path) -> None:
    run = _closed_stdout("run", "-s", "builtin", "-s", "conversation:builtin", "-m", "bm25", "--out", "r", cwd=tmp_path)
    _clean(run.stderr)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "r" / "run-embedded-latest.json").is_file()
    assert (tmp_path / "r" / "conversation-embedded-latest.json").is_file()  # the kind after the first scorecard


def test_a_failed_gate_still_says_so_on_stderr_and_exits_1(tmp_path: Path) -> None:
    run = _closed_stdout("run", "-m", "bm25", "--fields", "content", "--fail-under", "1", "--out", "r", cwd=tmp_path)
    _clean(run.stderr)
    assert run.returncode == 1
    assert "harness: embedded: embedded/bm25: pass rate" in run.stderr
    assert "is under --fail-under 1.0" in run.stderr


def test_validate_exits_0(tmp_path: Path) -> None:
    run = _closed_stdout("cases", "validate", "builtin", cwd=tmp_path)
    _clean(run.stderr)
    assert run.returncode == 0, run.stderr
