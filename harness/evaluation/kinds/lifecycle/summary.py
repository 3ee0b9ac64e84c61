"""A lifecycle run's numbers per mode, aggregated as the Mnemonic benchmark does (§3.3): ranking
scores averaged over every post-consolidation query of the direct scenarios, noise suppression
and signal retention over those scenarios; raw-event scenarios are summarised apart and never
decide the overall grade."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean

from harness.evaluation.kinds.lifecycle.results import RANKING, LifecycleResult
from harness.metrics.grades import THRESHOLDS, overall


@dataclass(frozen=True)
class ModeSummary:
    mode: str
    before: dict[str, float] = field(default_factory=dict)
    after: dict[str, float] = field(default_factory=dict)
    lifecycle: dict[str, float] = field(default_factory=dict)
    raw: dict[str, float] = field(default_factory=dict)
    """Raw-event scenarios: survival, suppression and their ranking scores after consolidation."""
    grades: dict[str, str] = field(default_factory=dict)
    grade: str | None = None
    """None when no direct scenario finished in this mode."""
    errors: int = 0


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def _query_means(results: Sequence[LifecycleResult], when: str) -> dict[str, float]:
    scores = [q[f"scores_{when}"] for r in results for q in r.queries]
    return {name: fmean(s[name] for s in scores) for name in RANKING} if scores else {}


def summarise(mode: str, results: Sequence[LifecycleResult]) -> ModeSummary:
    ran = [r for r in results if r.error is None]
    direct = [r for r in ran if not r.raw]
    raw = [r for r in ran if r.raw]
    lifecycle = {
        name: value
        for name in ("noise_suppression", "signal_retention", "dedup")
        if (value := _mean([r.lifecycle.get(name) for r in direct])) is not None
    }
    raw_summary = {
        name: value
        for name in ("signal_survival", "noise_suppression", "encoded", "episodes", "associations_per_signal")
        if (value := _mean([r.lifecycle.get(name) for r in raw])) is not None
    } | {f"{name}_after": v for name, v in _query_means(raw, "after").items()}
    after = _query_means(direct, "after")
    values = {**after, **lifecycle}
    grades = {name: THRESHOLDS[name].grade(values[name]) for name in THRESHOLDS if name in values}
    return ModeSummary(
        mode=mode,
        before=_query_means(direct, "before"),
        after=after,
        lifecycle=lifecycle,
        raw=raw_summary,
        grades={n: g.value for n, g in grades.items()},
        grade=overall(grades).value if direct else None,
        errors=len(results) - len(ran),
    )
