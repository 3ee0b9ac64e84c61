"""One lifecycle scenario in one mode, judged: ranking scores before and after consolidation,
what consolidation left, and grades (peer-formats.md §3.3)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from statistics import fmean
from typing import Any

from harness.evaluation.kinds.lifecycle.port import Observed
from harness.evaluation.kinds.lifecycle.runner import QueryRun, ScenarioRun
from harness.evaluation.results import Errs
from harness.metrics.grades import THRESHOLDS, overall
from harness.metrics.lifecycle_ranking import RankingScores, concept_hits, id_hits, ranking_scores
from harness.metrics.lifecycle_states import dedup_effectiveness, noise_suppression, signal_retention
from harness.models.memory import Label
from harness.models.scenario import MemoryState, Scenario

RANKING = ("precision", "trec_precision", "recall", "mrr", "ndcg")
"""The ranking scores, in report order (`RankingScores` fields)."""


@dataclass
class LifecycleResult(Errs):
    scenario: str
    raw: bool
    backend: str
    mode: str
    error: str | None = None
    backend_lost: bool = False
    queries: list[dict[str, Any]] = field(default_factory=list)
    """Per query: what came back before and after consolidation, and its scores."""
    before: dict[str, float] = field(default_factory=dict)
    after: dict[str, float] = field(default_factory=dict)
    """Ranking scores averaged over the scenario's queries, before and after consolidation."""
    lifecycle: dict[str, float | None] = field(default_factory=dict)
    """noise_suppression, signal_retention, dedup (and raw events: signal_survival, encoded, episodes, ...)."""
    grades: dict[str, str] = field(default_factory=dict)
    grade: str | None = None
    states: dict[str, str] = field(default_factory=dict)
    merged_into: dict[str, str] = field(default_factory=dict)
    cycles: list[dict[str, Any]] = field(default_factory=list)

    @property
    def item_id(self) -> str:
        return self.scenario

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _scores(
    run: QueryRun, scenario: Scenario, position: int, concepts: dict[str, tuple[str, ...]], k: int, fixed: bool
) -> RankingScores:
    query = scenario.queries[position]
    returned = [r.id for r in run.returned]
    if scenario.raw:
        hits = concept_hits([concepts[i] for i in returned], query.expected_concepts)
        return ranking_scores(hits, len(query.expected_concepts), k, fixed)
    return ranking_scores(id_hits(returned, query.expected_ids), len(query.expected_ids), k, fixed)


def _mean(scores: list[RankingScores]) -> dict[str, float]:
    return {name: fmean(getattr(s, name) for s in scores) for name in RANKING}


def judge(
    scenario: Scenario, run: ScenarioRun, result: LifecycleResult, k: int, fixed_cutoff: bool = False
) -> LifecycleResult:
    """`fixed_cutoff`: P@k and nDCG's ideal count k results however few come back (`ranking_scores`)."""
    before = [_scores(q, scenario, i, run.concepts, k, fixed_cutoff) for i, q in enumerate(run.baseline)]
    after = [_scores(q, scenario, i, run.concepts, k, fixed_cutoff) for i, q in enumerate(run.post)]
    result.queries = [
        {
            "query": query.query,
            "expected": list(query.expected_concepts if scenario.raw else query.expected_ids),
            "before": [{"id": r.id, "score": r.score, "via": r.via} for r in base.returned],
            "after": [{"id": r.id, "score": r.score, "via": r.via} for r in post.returned],
            "scores_before": asdict(b),
            "scores_after": asdict(a),
        }
        for query, base, post, b, a in zip(scenario.queries, run.baseline, run.post, before, after, strict=True)
    ]
    result.before, result.after = _mean(before), _mean(after)
    if run.observed is None:
        result.lifecycle = _unobserved(scenario, run)
    else:
        _states(scenario, run.observed, run, result)
    values = {**result.after, **result.lifecycle}
    grades = {name: THRESHOLDS[name].grade(v) for name in THRESHOLDS if (v := values.get(name)) is not None}
    result.grades = {name: g.value for name, g in grades.items()}
    result.grade = overall(grades).value
    return result


def _unobserved(scenario: Scenario, run: ScenarioRun) -> dict[str, float | None]:
    """A system under test's lifecycle shares: its memories' states are not observable through
    the protocol, so every share of them is None (not graded); a raw-event scenario's encoding is
    the harness's own, the same as the reference system's."""
    if scenario.raw:
        encoded = float(len(run.concepts))
        return {
            "signal_survival": None,
            "noise_suppression": None,
            "encoded": encoded,
            "episodes": float(run.episodes or 0),
            "associations_per_signal": None,
        }
    return {"noise_suppression": None, "signal_retention": None, "dedup": None}


def _states(scenario: Scenario, observed: Observed, run: ScenarioRun, result: LifecycleResult) -> None:
    """The lifecycle shares from every memory's final state, as the engine holds it."""
    final = observed.final
    result.states = {i: r.state.value for i, r in final.items()}
    result.merged_into = {i: r.merged_into for i, r in final.items() if r.merged_into}
    result.cycles = [asdict(c) for c in observed.cycles]
    states: dict[str, MemoryState | None] = {i: r.state for i, r in final.items()}
    if scenario.raw:
        labels = {e.id: e.label for e in scenario.raw_events}
        states = {i: states.get(i) for i in labels}
        signal = [i for i, label in labels.items() if label is Label.SIGNAL and i in final]
        touching = [sum(1 for e in observed.associations if i in (e.source, e.target)) for i in signal]
        result.lifecycle = {
            "signal_survival": signal_retention(labels, states),
            "noise_suppression": noise_suppression(labels, states),
            "encoded": float(len(final)),
            "episodes": float(run.episodes or 0),
            "associations_per_signal": fmean(touching) if touching else 0.0,
        }
    else:
        labels = {m.id: m.label for m in scenario.memories}
        result.lifecycle = {
            "noise_suppression": noise_suppression(labels, states),
            "signal_retention": signal_retention(labels, states),
            "dedup": dedup_effectiveness(
                labels,
                {i: r.state for i, r in final.items()},
                {i: r.merged_into for i, r in final.items()},
                {m.id: m.duplicate_of for m in scenario.memories},
            ),
        }
