"""What a pytest session knows of the harness before importing it: the plugin's entry imports this
module, so it holds pytest and the standard library only. The harness options (their dests), what
the session does with baselines, and the run every process of the session shares."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

FREEZE_ENV = "HARNESS_FREEZE"

BACKEND, MODE, SUITE, SYSTEM = "harness_backend", "harness_mode", "harness_suite", "harness_system"
CHECK_BASELINE, BASELINE_DIR, BASELINE_TOLERANCE = (
    "harness_check_baseline",
    "harness_baseline_dir",
    "harness_baseline_tolerance",
)
SELECTING = (BACKEND, MODE, SUITE, SYSTEM, BASELINE_DIR, BASELINE_TOLERANCE)
"""The options whose default is None: one given sets the harness up when the session starts."""


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
