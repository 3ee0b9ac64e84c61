"""The comparison rules: what counts as a regression against a baseline, item by item.

Every measure of a score sheet is higher-is-better. A number regressed when it fell by more than
the tolerance and improved when it rose by more; a drop of exactly the tolerance (up to float
rounding) is unchanged. A case regressed when it passed in the baseline and fails now, or when its
score fell beyond the tolerance. What the baseline has and this run lacks (a case, a category, a
measure with no value) is missing, and fails the check like a regression: a baseline cannot be met
by running less. What only this run has is new, and fails nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.models.scoresheet import CaseScore, ScoreSheet

DEFAULT_TOLERANCE = 0.001

_ROUNDING = 1e-12
"""Float noise below which a drop equal to the tolerance still counts as equal to it."""


class Verdict(StrEnum):
    REGRESSED = "regressed"
    MISSING = "missing"
    IMPROVED = "improved"
    NEW = "new"

    @property
    def fails(self) -> bool:
        return self in (Verdict.REGRESSED, Verdict.MISSING)


class Scope(StrEnum):
    OVERALL = "overall"
    CATEGORY = "category"
    CASE = "case"


Value = float | bool | None


@dataclass(frozen=True, slots=True)
class Change:
    """One item that differs from the baseline. `name` is the category or case ('' overall);
    `measure` is the measure, `passed` or `score` for a case, '' for a whole category or case."""

    verdict: Verdict
    scope: Scope
    name: str
    measure: str
    baseline: Value
    current: Value

    def label(self) -> str:
        """`case alias-03 passed` / `category alias recall` / `overall pass_rate`."""
        return " ".join(part for part in (self.scope.value, self.name, self.measure) if part)

    def line(self) -> str:
        if not self.measure and self.verdict is Verdict.MISSING:
            return f"{self.verdict.value:<9}  {self.label()}: in the baseline, not in this run"
        if not self.measure:
            return f"{self.verdict.value:<9}  {self.label()}: not in the baseline"
        return f"{self.verdict.value:<9}  {self.label()}: {_show(self.baseline)} -> {_show(self.current)}"


def _show(value: Value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "passed" if value else "failed"
    return f"{value:.4f}"


@dataclass(frozen=True, slots=True)
class Comparison:
    """Every item that differs from the baseline, in sheet order (overall, categories, cases)."""

    tolerance: float
    changes: tuple[Change, ...]
    unchanged: int
    """Items compared and found within the tolerance."""

    def having(self, verdict: Verdict) -> list[Change]:
        return [c for c in self.changes if c.verdict is verdict]

    @property
    def failures(self) -> list[Change]:
        return [c for c in self.changes if c.verdict.fails]

    @property
    def passed(self) -> bool:
        return not self.failures

    def cases(self, verdict: Verdict) -> list[str]:
        """The cases with a change of this verdict, each once (its pass and its score may both move)."""
        return list(dict.fromkeys(c.name for c in self.having(verdict) if c.scope is Scope.CASE))

    def counts(self) -> str:
        """`cases: 2 regressed, 1 missing, 0 improved, 0 new; overall and category measures: 3 regressed, ...`:
        cases counted once each, apart from the means over them, so no count reads as the other."""
        cases = ", ".join(f"{len(self.cases(v))} {v.value}" for v in Verdict)
        measures = ", ".join(f"{sum(c.scope is not Scope.CASE for c in self.having(v))} {v.value}" for v in Verdict)
        return f"cases: {cases}; overall and category measures: {measures}"


def compare(
    baseline: ScoreSheet, current: ScoreSheet, tolerance: float = DEFAULT_TOLERANCE, *, subset: bool = False
) -> Comparison:
    """Compare `current` with `baseline` by the rules above. `subset`: the run may have run part
    of the items (`--limit`, `--shard`); when its items differ from the baseline's, it is compared
    item by item with the same items of the baseline only (its overall and category means are of
    other items, and the items it did not run are not missing)."""
    if tolerance < 0 or math.isnan(tolerance):
        raise ValueError(f"tolerance must be a non-negative number, not {tolerance}")
    if subset and set(current.cases) != set(baseline.cases):
        baseline = ScoreSheet(cases={case: s for case, s in baseline.cases.items() if case in current.cases})
        current = ScoreSheet(cases=current.cases)
    changes: list[Change] = []
    unchanged = _measures(Scope.OVERALL, "", baseline.overall, current.overall, tolerance, changes)
    for name in _union(baseline.categories, current.categories):
        if name not in current.categories:
            changes.append(Change(Verdict.MISSING, Scope.CATEGORY, name, "", None, None))
        elif name not in baseline.categories:
            changes.append(Change(Verdict.NEW, Scope.CATEGORY, name, "", None, None))
        else:
            unchanged += _measures(
                Scope.CATEGORY, name, baseline.categories[name], current.categories[name], tolerance, changes
            )
    for case in _union(baseline.cases, current.cases):
        if case not in current.cases:
            changes.append(Change(Verdict.MISSING, Scope.CASE, case, "", None, None))
        elif case not in baseline.cases:
            changes.append(Change(Verdict.NEW, Scope.CASE, case, "", None, None))
        else:
            unchanged += _case(case, baseline.cases[case], current.cases[case], tolerance, changes)
    return Comparison(tolerance, tuple(changes), unchanged)


def _union(first: Mapping[str, Any], second: Mapping[str, Any]) -> list[str]:
    """Keys of both, the baseline's order first: reports read in the order the suite has."""
    return list(dict.fromkeys([*first, *second]))


def _measures(
    scope: Scope,
    name: str,
    baseline: Mapping[str, float],
    current: Mapping[str, float],
    tolerance: float,
    changes: list[Change],
) -> int:
    """Append the changed measures of one overall or category row; return how many were unchanged."""
    unchanged = 0
    for measure in _union(baseline, current):
        verdict = _number(baseline.get(measure), current.get(measure), tolerance)
        if verdict is None:
            unchanged += 1
        else:
            changes.append(Change(verdict, scope, name, measure, baseline.get(measure), current.get(measure)))
    return unchanged


def _case(case: str, baseline: CaseScore, current: CaseScore, tolerance: float, changes: list[Change]) -> int:
    unchanged = 0
    verdict = _verdict(baseline.passed, current.passed)
    if verdict is None:
        unchanged += baseline.passed is not None
    else:
        changes.append(Change(verdict, Scope.CASE, case, "passed", baseline.passed, current.passed))
    verdict = _number(baseline.score, current.score, tolerance)
    if verdict is None:
        unchanged += baseline.score is not None
    else:
        changes.append(Change(verdict, Scope.CASE, case, "score", baseline.score, current.score))
    return unchanged


def _verdict(baseline: bool | None, current: bool | None) -> Verdict | None:
    if baseline == current:
        return None
    if current is None:
        return Verdict.MISSING
    if baseline is None:
        return Verdict.NEW
    return Verdict.IMPROVED if current else Verdict.REGRESSED


def _number(baseline: float | None, current: float | None, tolerance: float) -> Verdict | None:
    """None when both are absent or within the tolerance of each other."""
    if baseline is None and current is None:
        return None
    if current is None:
        return Verdict.MISSING
    if baseline is None:
        return Verdict.NEW
    delta = current - baseline
    if abs(delta) <= tolerance + _ROUNDING:
        return None
    return Verdict.IMPROVED if delta > 0 else Verdict.REGRESSED


@dataclass(frozen=True, slots=True)
class SettingChange:
    """A top-level setting whose value differs between the baseline and this run (a note, not a failure)."""

    name: str
    baseline: Any
    current: Any

    def line(self) -> str:
        shown = (json.dumps(value, sort_keys=True) for value in (self.baseline, self.current))
        return f"setting {self.name}: {' -> '.join(shown)}"


def setting_changes(baseline: Mapping[str, Any], current: Mapping[str, Any]) -> list[SettingChange]:
    return [
        SettingChange(name, baseline.get(name), current.get(name))
        for name in _union(baseline, current)
        if baseline.get(name) != current.get(name)
    ]
