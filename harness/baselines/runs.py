"""What `--check-baseline` / `--freeze-baseline` ask of every finished run of a run matrix
(`evaluation/matrix.py`): the baselines read before anything runs, each run's sheets frozen or
checked after it. The pytest plugin's session gate (`pytest_plugin/gate.py`) gathers items instead."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.baselines import history
from harness.baselines.gate import GateResult, report_sheets, require, run_gate
from harness.baselines.key import BaselineKey
from harness.baselines.store import BaselineStore
from harness.errors import HarnessError
from harness.pipeline import Mode
from harness.reports.document import Report
from harness.systems.protocol import REFERENCE


class Baselined(Protocol):
    """What a gate asks of a kind before its run (a `CaseKind` is one; named here so baselines,
    which the run matrix calls, import nothing of evaluation)."""

    @property
    def name(self) -> str: ...

    @property
    def baseline_suite(self) -> str | None: ...


@dataclass(frozen=True)
class RunGate:
    """Freeze (`freeze_run`) or check every (suite, backend, mode, system) of a run."""

    store: BaselineStore
    freeze_run: bool
    tolerance: float
    history_file: Path
    """Beside the reports: a check never writes into the baselines folder (a checkout's `cases/`)."""

    @classmethod
    def asked(
        cls,
        check: bool,
        freeze: bool,
        folder: Path | None,
        tolerance: float,
        *,
        sharded: bool,
        dry_run: bool,
        out: Path,
    ) -> RunGate | None:
        """The gate a run asks for (None: neither). A check may run on a shard (its items are
        checked against the same items of the baseline); a freeze needs the whole run."""
        if not (check or freeze):
            return None
        if check and freeze:
            raise HarnessError("--check-baseline and --freeze-baseline: pick one")
        if freeze and sharded:
            raise HarnessError("--freeze-baseline needs a whole run (not --shard): a baseline holds every item")
        if dry_run:
            raise HarnessError(f"--{'check' if check else 'freeze'}-baseline needs a run (not --dry-run)")
        store = BaselineStore(folder)
        if check and not store.root.is_dir():
            raise HarnessError(f"--check-baseline: no baselines folder {store.root} (freeze first, or --baseline-dir)")
        return cls(store, freeze, tolerance, out / history.FILE_NAME)

    def require(
        self, kind: Baselined, backends: Sequence[str], modes: Sequence[Mode], systems: Sequence[str] = (REFERENCE,)
    ) -> None:
        """Before the run: a check needs a baseline of each backend, mode and system it asks for."""
        if kind.baseline_suite is None:
            raise HarnessError(f"{kind.name} runs report no scores a baseline can hold")
        if not self.freeze_run:
            suite = kind.baseline_suite
            require(self.store, [BaselineKey(suite, b, m.value, s) for s in systems for b in backends for m in modes])

    def apply(
        self, report: Report, suite: str | None, backend: str, subset: bool, system: str = REFERENCE
    ) -> GateResult:
        """`subset`: the run may have run part of the baseline's items (`--limit`, `--shard`): a
        check compares those items with the same items of the baseline."""
        sheets = report_sheets(report, suite, backend, system)
        return run_gate(
            self.store,
            sheets,
            report.settings,
            freeze_run=self.freeze_run,
            history_file=self.history_file,
            tolerance=self.tolerance,
            subset=subset,
        )
