"""The session's baseline gate: with `--check-baseline` the belief-suite items' results (carried to
the controller in each test report's user properties, so xdist works) are checked against the
committed baselines when the session ends, and a regression fails the session; HARNESS_FREEZE=1
freezes them instead. The history of either goes into the session's basetemp, never into the
checkout. Other kinds are held to their baselines item by item (`items.py`), and
gated as a whole by `harness run --check-baseline`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.baselines import BaselineKey, BaselineStore, run_gate
from harness.errors import HarnessError
from harness.evaluation.kind import Result
from harness.evaluation.results import CaseResult
from harness.models.scoresheet import ScoreSheet
from harness.pipeline import PipelineSettings
from harness.reports.run_report import baseline_settings
from harness.reports.scores import suite_scores
from harness.suites import load_suite
from harness.systems.protocol import REFERENCE

FREEZE_ENV = "HARNESS_FREEZE"
RESULT_PROPERTY = "harness_result"
"""The user property a belief item's results travel under to the controller's baseline gate."""


def baseline_action(config: pytest.Config) -> str | None:
    """`freeze`, `check` or None: what the session does with baselines when it ends."""
    freeze_run = os.environ.get(FREEZE_ENV) == "1"
    if freeze_run and config.getoption("--check-baseline"):
        raise pytest.UsageError(f"{FREEZE_ENV}=1 freezes baselines and --check-baseline checks them: pick one")
    return "freeze" if freeze_run else "check" if config.getoption("--check-baseline") else None


def record(node: pytest.Item, spec: str, results: Sequence[Result], system: str = REFERENCE) -> None:
    """Hand an item's belief-case results to the controller's gate (in the item's report)."""
    for result in results:
        if isinstance(result, CaseResult):
            value = {"suite": spec, "system": system, "result": result.to_json()}
            node.user_properties.append((RESULT_PROPERTY, value))


class BaselineGate:
    """In the controller: collects the belief items' results from their reports, then freezes or
    checks one baseline per suite x backend x mode when the session ends. Either needs every case
    of the suite to have run in that backend and mode (a -k, -x or skip would freeze or check a
    part as if it were the whole)."""

    def __init__(
        self, store: BaselineStore, action: str, tolerance: float, embedding_model: str | None, history_file: Path
    ) -> None:
        self.store = store
        self.action = action
        self.tolerance = tolerance
        self.embedding_model = embedding_model
        self.history_file = history_file
        self.results: dict[tuple[str, str], list[CaseResult]] = {}
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == RESULT_PROPERTY and isinstance(value, dict):  # as `record` wrote it
                key = (value["suite"], value.get("system", REFERENCE))
                self.results.setdefault(key, []).append(CaseResult(**value["result"]))

    @pytest.hookimpl(tryfirst=True)  # before the exit status is final
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            return
        try:
            gate = run_gate(
                self.store,
                self._sheets(),
                baseline_settings(PipelineSettings(), None, self.embedding_model),
                freeze_run=self.action == "freeze",
                history_file=self.history_file,
                tolerance=self.tolerance,
            )
        except HarnessError as exc:
            self.lines = [f"harness: {exc}"]
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        self.lines = [*gate.lines, f"baseline history: {self.history_file}"]
        if gate.failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _sheets(self) -> dict[BaselineKey, ScoreSheet]:
        if not self.results:
            raise HarnessError(f"baseline {self.action}: no suite case ran in this session")
        sheets = {}
        for (spec, system), rows in self.results.items():
            suite = load_suite(spec)
            whole = len(suite.static_cases) + sum(len(c.turns) for c in suite.session_cases)
            by_backend: dict[str, list[CaseResult]] = {}
            for row in rows:
                by_backend.setdefault(row.backend, []).append(row)
            for backend, backend_rows in by_backend.items():
                for mode, sheet in suite_scores(backend_rows).items():
                    ran = sum(row.mode == mode for row in backend_rows)
                    if ran != whole:
                        raise HarnessError(
                            f"baseline {self.action} of {suite.name} on {backend} in {mode} needs every case: "
                            f"{ran} of {whole} ran (-k, -x or a skip left some out)"
                        )
                    sheets[BaselineKey(suite.name, backend, mode, system)] = sheet
        return sheets

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.write_sep("=", f"baselines ({self.action})")
            for line in self.lines:
                terminalreporter.write_line(line)
