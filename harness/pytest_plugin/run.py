"""What a pytest session knows of the harness before importing it: the plugin's entry imports this
module, so it holds pytest and the standard library only. The harness options (their dests), what
the session does with baselines, and the run every process of the session shares."""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pytest

FREEZE_ENV = "HARNESS_FREEZE"

BACKEND, MODE, SUITE, SYSTEM = "harness_backend", "harness_mode", "harness_suite", "harness_system"
CHECK_BASELINE, BASELINE_DIR, BASELINE_TOLERANCE = (
    "harness_check_baseline",
    "harness_baseline_dir",
    "harness_baseline_tolerance",
)
CONCURRENCY = "harness_concurrency"
SELECTING = (BACKEND, MODE, SUITE, SYSTEM, BASELINE_DIR, BASELINE_TOLERANCE, CONCURRENCY)
"""The options whose default is None: one given sets the harness up when the session starts."""


def given(config: pytest.Config) -> list[str]:
    """The `--harness-*` options given, as written: each asks for the harness's items."""
    dests = [dest for dest in SELECTING if config.getoption(dest) is not None]
    dests += [CHECK_BASELINE] if config.getoption(CHECK_BASELINE) else []
    return [f"--{dest.replace('_', '-')}" for dest in dests]


@dataclass(frozen=True)
class Run:
    """What every process of one pytest run shares: the run id, the owning pid, the records folder."""

    run_id: str
    owner: int
    records: Path

    def started(self) -> bool:
        """Whether any process of the run started a server (or tried to): its record is there."""
        return self.records.is_dir() and any(self.records.glob("*.json"))


def baseline_action(config: pytest.Config) -> str | None:
    """`freeze`, `check` or None: what the session does with baselines when it ends."""
    freeze_run = os.environ.get(FREEZE_ENV) == "1"
    checks = config.getoption(CHECK_BASELINE)
    if freeze_run and checks:
        raise pytest.UsageError(f"{FREEZE_ENV}=1 freezes baselines and --harness-check-baseline checks them: pick one")
    return "freeze" if freeze_run else "check" if checks else None


def terminate_as_interrupt() -> None:
    """In the controller of a run that may start servers: SIGTERM unwinds as Ctrl-C does (pytest's
    `KeyboardInterrupt` path, whose unconfigure removes the run's servers and their records); by
    default it would end the process at once and leave them. A second SIGTERM is ignored rather
    than cut that teardown short. A handler the user installed is left in place."""
    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread can set handlers
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def interrupt(_signum: int, _frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt("SIGTERM")

    signal.signal(signal.SIGTERM, interrupt)
