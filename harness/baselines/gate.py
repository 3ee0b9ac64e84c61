"""Freeze and check: the two operations the CLI and the pytest plugin offer, and the lines they print.

Both take a run's score sheet for one (suite, backend, mode) and the settings that produced it,
and append one line to the run's history file (`history_file`: beside the run's reports, never in
the baselines folder). A check never writes a baseline; a freeze writes it (replacing the previous
one only because it was asked to) and says what changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import __version__
from harness.baselines import history
from harness.baselines.compare import (
    DEFAULT_TOLERANCE,
    Comparison,
    SettingChange,
    Verdict,
    compare,
    setting_changes,
)
from harness.baselines.key import BaselineKey
from harness.baselines.store import Baseline, BaselineStore, Frozen, plain
from harness.errors import HarnessError
from harness.models.scoresheet import ScoreSheet, sheet_json
from harness.reports.document import Report
from harness.systems.protocol import REFERENCE


@dataclass(frozen=True, slots=True)
class Checked:
    """One (suite, backend, mode) checked against its baseline."""

    key: BaselineKey
    baseline: Baseline
    comparison: Comparison
    settings: tuple[SettingChange, ...]

    @property
    def passed(self) -> bool:
        return self.comparison.passed

    def lines(self) -> list[str]:
        verdict = "passed" if self.passed else "FAILED"
        head = (
            f"baseline {self.key}: {verdict} ({self.comparison.counts()}; tolerance {self.comparison.tolerance:g}; "
            f"frozen {self.baseline.frozen_at}, harness {self.baseline.harness_version})"
        )
        return [head, *_details(self.comparison, self.settings)]


@dataclass(frozen=True, slots=True)
class FreezeResult:
    frozen: Frozen
    comparison: Comparison | None
    """Against the baseline it replaced (None: there was none)."""
    settings: tuple[SettingChange, ...]

    def lines(self) -> list[str]:
        key, path, previous = self.frozen.baseline.key, self.frozen.path, self.frozen.previous
        if previous is None or self.comparison is None:
            return [f"baseline {key}: frozen in {path} (new)"]
        if not self.frozen.written:
            return [f"baseline {key}: unchanged in {path} (the same scores, settings and version)"]
        head = (
            f"baseline {key}: frozen in {path}, replacing the one of {previous.frozen_at} "
            f"(harness {previous.harness_version}): {self.comparison.counts()}"
        )
        return [head, *_details(self.comparison, self.settings)]


def _details(comparison: Comparison, settings: tuple[SettingChange, ...]) -> list[str]:
    """Failures first, then improvements and new items; then the settings that differ."""
    order = (Verdict.REGRESSED, Verdict.MISSING, Verdict.IMPROVED, Verdict.NEW)
    changes = [f"  {change.line()}" for verdict in order for change in comparison.having(verdict)]
    return changes + [f"  {change.line()}" for change in settings]


def check(
    store: BaselineStore,
    key: BaselineKey,
    scores: ScoreSheet,
    settings: Mapping[str, Any],
    tolerance: float = DEFAULT_TOLERANCE,
    subset: bool = False,
    *,
    history_file: Path,
) -> Checked:
    """Compare a run with its baseline (MissingBaseline when there is none) and append it to
    `history_file`; `subset`: a run of part of the items, compared with the same items of the baseline."""
    baseline = store.load(key)
    checked = Checked(
        key,
        baseline,
        compare(baseline.scores, scores, tolerance, subset=subset),
        tuple(setting_changes(baseline.settings, plain(settings))),
    )
    history.append(
        history_file,
        _entry("check", key, scores, settings)
        | {
            "passed": checked.passed,
            "tolerance": tolerance,
            "subset": subset,
            "baseline_frozen_at": baseline.frozen_at,
            **_changed(checked.comparison),
        },
    )
    return checked


def freeze(
    store: BaselineStore, key: BaselineKey, scores: ScoreSheet, settings: Mapping[str, Any], *, history_file: Path
) -> FreezeResult:
    """Make this run the baseline of `key` (asked for explicitly) and record it in `history_file`."""
    frozen = store.freeze(key, scores, settings)
    previous = frozen.previous
    comparison = None if previous is None else compare(previous.scores, scores)
    changes = () if previous is None else tuple(setting_changes(previous.settings, plain(settings)))
    if frozen.written:
        entry = _entry("freeze", key, scores, settings) | {"replaced": previous.frozen_at if previous else None}
        history.append(history_file, entry | (_changed(comparison) if comparison else {}))
    return FreezeResult(frozen, comparison, changes)


def _entry(event: str, key: BaselineKey, scores: ScoreSheet, settings: Mapping[str, Any]) -> dict[str, Any]:
    sheet = sheet_json(scores)
    return {
        "event": event,
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "suite": key.suite,
        "backend": key.backend,
        "mode": key.mode,
        "harness_version": __version__,
        "settings": plain(settings),
        "overall": sheet["overall"],
        "categories": sheet["categories"],
    }


def _changed(comparison: Comparison) -> dict[str, list[str]]:
    """The items of each verdict, by label: the history keeps what moved, not every case."""
    return {verdict.value: [c.label() for c in comparison.having(verdict)] for verdict in Verdict}


@dataclass(frozen=True, slots=True)
class GateResult:
    """What freezing or checking a whole run did: the lines to print, and each check (none for a freeze)."""

    lines: list[str]
    checked: list[Checked]

    @property
    def failed(self) -> list[BaselineKey]:
        """The keys whose check failed."""
        return [c.key for c in self.checked if not c.passed]


def run_gate(
    store: BaselineStore,
    sheets: Mapping[BaselineKey, ScoreSheet],
    settings: Mapping[str, Any],
    *,
    freeze_run: bool,
    history_file: Path,
    tolerance: float = DEFAULT_TOLERANCE,
    subset: bool = False,
) -> GateResult:
    """Freeze every sheet of a run, or check each against its baseline. A check reads every
    baseline first, so one that is missing or bad is an error before any history is written."""
    if freeze_run:
        frozen = [freeze(store, key, sheet, settings, history_file=history_file) for key, sheet in sheets.items()]
        return GateResult([line for result in frozen for line in result.lines()], [])
    for key in sheets:
        store.load(key)
    checks = [
        check(store, key, sheet, settings, tolerance, subset, history_file=history_file)
        for key, sheet in sheets.items()
    ]
    return GateResult([line for c in checks for line in c.lines()], checks)


def report_sheets(
    report: Report, suite: str | None, backend: str, system: str = REFERENCE
) -> dict[BaselineKey, ScoreSheet]:
    """The score sheets of one backend's report, by the baseline each is frozen as or checked against."""
    if suite is None or not report.scores:
        raise HarnessError(f"{report.stem}: this run reports no scores a baseline can hold")
    return {BaselineKey(suite, backend, mode, system): sheet for mode, sheet in report.scores.items()}


def require(store: BaselineStore, keys: Iterable[BaselineKey]) -> None:
    """Read the baseline of every key a run will check, before it runs: a missing or bad one is
    bad input (exit 2) then, not after minutes of work."""
    for key in keys:
        store.load(key)


def stored_lines(store: BaselineStore) -> list[str]:
    """One line per stored baseline: what it is of, when and by which version it was frozen, its overall scores."""
    lines = []
    for path, baseline in store.all():
        overall = " ".join(f"{name}={value:.4f}" for name, value in sorted(baseline.scores.overall.items()))
        lines.append(
            f"{baseline.key}: frozen {baseline.frozen_at}, harness {baseline.harness_version}, "
            f"{len(baseline.scores.cases)} cases; {overall} ({path})"
        )
    return lines or [f"no baselines in {store.root}"]
