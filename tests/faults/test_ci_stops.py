"""`harness ci` always leaves a line in the step summary and its outputs, whatever stopped it: bad
input, a signal mid-run, a crash. Under the action an empty summary and empty outputs read as
nothing happened; the summary says it stopped, with the exit code and why, and the outputs name the
report folder (any finished part is there) and leave the rest empty."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.backends.ledger import STATE_DIR_ENV
from harness.cli import ci
from harness.systems.http_client import DEADLINE_ENV
from tests.faults.helpers import start, wait_for, write_suite
from tests.faults.hostile_service import Hostile, hang, serving

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))


def _ci_args(tmp_path: Path, *args: str, out: str | None = None) -> list[str]:
    suite = write_suite(tmp_path / "suite", 2)
    return [
        "ci", "--no-check-baseline", "--suites", str(suite), "--out", out or str(tmp_path / "out"),
        "--summary", str(tmp_path / "summary.md"), "--outputs", str(tmp_path / "outputs.txt"), *args,
    ]  # fmt: skip


def _stopped(tmp_path: Path, code: int) -> tuple[str, dict[str, str]]:
    """The summary (it says the run stopped, and its exit code) and the outputs, by name."""
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith(f"## memory-retrieval-harness: stopped (exit {code})\n"), summary
    lines = (tmp_path / "outputs.txt").read_text(encoding="utf-8").splitlines()
    outputs = dict(line.split("=", 1) for line in lines)
    assert set(outputs) == {"reports", "junit", "pass-rate", "regressed-baselines", "regressed-cases"}, lines
    return summary, outputs


def test_bad_modes_are_summarised(cli: Cli, tmp_path: Path) -> None:
    code, _, err = cli(*_ci_args(tmp_path, "--modes", "bogus"))
    assert code == 2, err
    summary, outputs = _stopped(tmp_path, 2)
    assert "unknown mode bogus" in summary
    assert outputs["reports"] == str(tmp_path / "out")


def test_an_out_folder_with_a_line_break_is_summarised_and_left_out_of_the_outputs(cli: Cli, tmp_path: Path) -> None:
    code, _, err = cli(*_ci_args(tmp_path, out=str(tmp_path / "a\nb")))
    assert code == 2, err
    summary, outputs = _stopped(tmp_path, 2)
    assert "a line break in its name cannot be a step output" in summary
    assert outputs["reports"] == ""


def test_a_crash_is_summarised_before_it_is_raised(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*_args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(ci, "run_matrix", crash)
    with pytest.raises(RuntimeError, match="a bug"):
        cli(*_ci_args(tmp_path, "--modes", "bm25"))
    summary, _ = _stopped(tmp_path, 1)
    assert "the harness crashed: RuntimeError: a bug" in summary


def test_sigterm_mid_run_is_summarised(tmp_path: Path) -> None:
    """The service holds the first search; SIGTERM then stops the run (exit 143)."""
    service = Hostile()
    service.faults[("POST", "/search")] = hang
    with serving(service) as url:
        args = _ci_args(tmp_path, "--systems", f"http:{url}", "--modes", "bm25")
        process = start(*args, cwd=tmp_path, **{STATE_DIR_ENV: str(tmp_path / "state"), DEADLINE_ENV: "60"})
        try:
            wait_for(lambda: any(p == "/search" for _, p, _ in service.seen), 60, "the first search")
            time.sleep(0.2)
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 143, err
    summary, outputs = _stopped(tmp_path, 143)
    assert "interrupted by SIGTERM" in summary
    assert outputs["reports"] == str(tmp_path / "out")
