"""The session's baseline gate: with `--harness-check-baseline` every item's results, of any kind (carried
to the controller in each test report's user properties, so xdist works), are checked against the
committed baselines when the session ends, and a regression fails the session; HARNESS_FREEZE=1
freezes them instead. As `harness run` does: the kind is built again from its `--harness-suite`, reports
the items' results (one report per suite, backend and mode), and its score sheets are frozen or
checked with its report's settings, item by item; a check of part of a suite (`-k`, a skip)
compares those items with the same items of the baseline, a freeze needs them all. The history
of either goes into the session's basetemp, never into the checkout."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness.backends.base import BackendInfo
from harness.baselines import BaselineStore, GateResult, report_sheets, run_gate
from harness.errors import HarnessError
from harness.evaluation import kinds
from harness.evaluation.kind import CaseKind, Result, run_order
from harness.pipeline import Mode
from harness.pytest_plugin.items import ItemParam, Kinds
from harness.reports.document import RunInfo

RESULT_PROPERTY = "harness_result"
"""The user property an item's results travel under to the controller's baseline gate."""


def record(node: pytest.Item, param: ItemParam, info: BackendInfo, results: Sequence[Result]) -> None:
    """Hand an item's results to the controller's gate (in the item's report), with where they ran."""
    where = {"suite": param.spec, "kind": param.kind, "backend": param.backend, "mode": param.mode.value}
    where |= {"system": param.system}
    rows = [result.to_json() for result in results]
    node.user_properties.append(
        (RESULT_PROPERTY, {**where, "item": param.item.id, "info": asdict(info), "results": rows})
    )


@dataclass
class _Ran:
    """What the items of one suite x backend x mode handed in: where they ran, which, their results."""

    info: dict[str, Any]
    items: set[str] = field(default_factory=set)
    results: list[dict[str, Any]] = field(default_factory=list)


class BaselineGate:
    """In the controller: collects the items' results from their reports, then freezes or checks
    one baseline per suite x backend x mode (x system under test) when the session ends."""

    def __init__(
        self, store: BaselineStore, action: str, tolerance: float, modes: Sequence[Mode], history_file: Path
    ) -> None:
        self.store = store
        self.action = action
        self.tolerance = tolerance
        self.kinds = Kinds(modes)
        self.history_file = history_file
        self.runs: dict[tuple[str, str, str, str, str], _Ran] = {}
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == RESULT_PROPERTY and isinstance(value, dict):  # as `record` wrote it
                key = (value["suite"], value["kind"], value["backend"], value["mode"], value["system"])
                ran = self.runs.setdefault(key, _Ran(value["info"]))
                ran.items.add(value["item"])
                ran.results.extend(value["results"])

    @pytest.hookimpl(tryfirst=True)  # before the exit status is final
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            return
        if not self.runs:
            self.lines = [f"harness: baseline {self.action}: no item ran in this session"]
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        failed, lines = False, list[str]()
        try:
            for (suite, name, backend, mode, system), ran in self.runs.items():
                gate = self._gate(suite, name, backend, Mode(mode), system, ran)
                failed, lines = failed or bool(gate.failed), [*lines, *gate.lines]
        except HarnessError as exc:
            self.lines = [f"harness: {exc}"]
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        self.lines = [*lines, f"baseline history: {self.history_file}"]
        if failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _gate(self, suite: str, name: str, backend: str, mode: Mode, system: str, items: _Ran) -> GateResult:
        """Freeze or check one suite x backend x mode (x system) from its items' results, as `harness run` would."""
        spec = kinds.spec(name)
        kind: CaseKind[Any] = self.kinds[suite]  # type: ignore[assignment]  # an Itemized kind is a CaseKind
        results = sorted((spec.result(row) for row in items.results), key=run_order(spec, kind, [mode.value]))
        whole = {item.id for item in self.kinds[suite].items()}
        ran = items.items & whole
        if self.action == "freeze" and ran != whole:
            raise HarnessError(
                f"baseline freeze of {kind.baseline_suite} on {backend} in {mode.value} needs every item: "
                f"{len(ran)} of {len(whole)} ran (-k, -x or a skip left some out)"
            )
        run = RunInfo(BackendInfo(**items.info), (mode,), {}, {}, datetime.now(UTC), 0.0)
        report = kind.report(results, run)
        return run_gate(
            self.store,
            report_sheets(report, kind.baseline_suite, backend, system),
            report.settings,
            freeze_run=self.action == "freeze",
            history_file=self.history_file,
            tolerance=self.tolerance,
            subset=ran != whole,
        )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.write_sep("=", f"baselines ({self.action})")
            for line in self.lines:
                terminalreporter.write_line(line)
