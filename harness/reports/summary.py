"""Aggregates case results per (backend, mode): the numbers of the scorecard and comparisons."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.evaluation.results import CaseResult
from harness.metrics import latency_summary, mean_defined


@dataclass(frozen=True)
class ModeSummary:
    backend: str
    mode: str
    static_passed: int
    static_total: int
    session_passed: int
    session_total: int
    turns_passed: int
    turns_total: int
    mean_precision: float | None
    mean_recall: float | None
    mean_ndcg: float | None
    mrr: float | None
    mean_drift: float | None
    p50_ms: float
    p95_ms: float
    errors: int
    pass_types: dict[str, int] = field(default_factory=dict)
    unsupported: str | None = None
    measured: int | None = None
    """Cases the precision, recall and nDCG means are taken over (an expected set, no error);
    None in reports written before it was recorded."""
    first_error: str | None = None

    @classmethod
    def not_run(cls, backend: str, mode: str, reason: str) -> ModeSummary:
        """A mode the engine cannot do: shown as unsupported, counted nowhere."""
        return cls(backend, mode, 0, 0, 0, 0, 0, 0, None, None, None, None, None, 0.0, 0.0, 0, {}, reason)

    @property
    def pass_rate(self) -> float:
        total = self.static_total + self.session_total
        return (self.static_passed + self.session_passed) / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"pass_rate": self.pass_rate}


def summarize(results: Iterable[CaseResult]) -> list[ModeSummary]:
    groups: dict[tuple[str, str], list[CaseResult]] = defaultdict(list)
    for result in results:
        groups[(result.backend, result.mode)].append(result)
    return [_summary(backend, mode, rows) for (backend, mode), rows in groups.items()]


def _summary(backend: str, mode: str, rows: Sequence[CaseResult]) -> ModeSummary:
    static = [r for r in rows if r.kind == "static"]
    turns = [r for r in rows if r.kind == "session"]
    sessions: dict[str, bool] = {}
    for turn in turns:
        sessions[turn.case_id] = sessions.get(turn.case_id, True) and turn.passed
    latency = latency_summary([r.latency_ms / 1000.0 for r in rows if r.latency_ms is not None])
    return ModeSummary(
        backend=backend,
        mode=mode,
        static_passed=sum(r.passed for r in static),
        static_total=len(static),
        session_passed=sum(sessions.values()),
        session_total=len(sessions),
        turns_passed=sum(r.passed for r in turns),
        turns_total=len(turns),
        mean_precision=mean_defined(r.precision for r in rows),
        mean_recall=mean_defined(r.recall for r in rows),
        mean_ndcg=mean_defined(r.ndcg for r in rows),
        mrr=mean_defined(r.reciprocal_rank for r in rows),
        mean_drift=mean_defined(r.drift for r in turns),
        p50_ms=latency.p50_ms,
        p95_ms=latency.p95_ms,
        errors=sum(r.error is not None for r in rows),
        pass_types=dict(Counter(r.pass_type for r in rows if r.pass_type)),
        measured=sum(r.precision is not None for r in rows),
        first_error=next((r.error for r in rows if r.error is not None), None),
    )
