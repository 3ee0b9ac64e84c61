"""Means over the questions of a run, per mode and level, overall and per category."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from harness.evaluation.kinds.haystack.results import Evaluation, QuestionResult, QuestionStatus
from harness.metrics import LatencySummary, latency_summary, mean_defined
from harness.metrics.dataset_measures import metric_names
from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode


@dataclass(frozen=True, slots=True)
class Aggregate:
    questions: int
    metrics: dict[str, float | None]


@dataclass(frozen=True, slots=True)
class LevelSummary:
    overall: Aggregate
    by_category: dict[str, Aggregate]


@dataclass(frozen=True, slots=True)
class DatasetSummary:
    """A mode's numbers: errors count as asked but unscored (they lower no mean; see error counts)."""

    mode: Mode
    asked: int
    errors: int
    levels: dict[Granularity, LevelSummary]
    latency: LatencySummary


def _aggregate(results: Sequence[QuestionResult], level: Granularity) -> Aggregate:
    scored = [lv.metrics for r in results for lv in r.levels if lv.level is level]
    return Aggregate(len(scored), {name: mean_defined(m[name] for m in scored) for name in metric_names()})


def levels_of(granularity: Granularity) -> tuple[Granularity, ...]:
    """Turn runs are also scored at session level (sessions by their best turn)."""
    return (Granularity.TURN, Granularity.SESSION) if granularity is Granularity.TURN else (Granularity.SESSION,)


def summarize(run: Evaluation) -> list[DatasetSummary]:
    summaries = []
    for mode in run.modes:
        results = [r for r in run.results if r.mode is mode]
        ok = [r for r in results if r.status is QuestionStatus.OK]
        levels = {}
        for level in levels_of(run.granularity):
            by_category: dict[str, list[QuestionResult]] = defaultdict(list)
            for result in ok:
                by_category[result.category].append(result)
            levels[level] = LevelSummary(
                _aggregate(ok, level), {c: _aggregate(rs, level) for c, rs in sorted(by_category.items())}
            )
        summaries.append(
            DatasetSummary(
                mode,
                asked=len(results),
                errors=sum(r.status is QuestionStatus.ERROR for r in results),
                levels=levels,
                latency=latency_summary([r.latency_s for r in ok if r.latency_s is not None]),
            )
        )
    return summaries


def skipped_counts(run: Evaluation) -> Counter[str]:
    """Skipped questions by reason (abstention, no usable gold)."""
    return Counter(r.reason or "" for r in run.results if r.status is QuestionStatus.SKIPPED)


def defect_counts(run: Evaluation) -> Counter[str]:
    """Evidence defects by kind, each question counted once per defect it has."""
    seen: dict[str, tuple[str, ...]] = {r.id: r.defects for r in run.results}
    return Counter(_kind(d) for defects in seen.values() for d in defects)


def _kind(defect: str) -> str:
    for kind in ("empty evidence", "malformed", "names no turn", "split into", "read as", "not in the haystack"):
        if kind in defect:
            return kind
    return defect
