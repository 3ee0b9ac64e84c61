"""One row per static case or session turn in a mode: what came back, what was expected, and the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.evaluation.results import Fails
from harness.models import Budget, Expect, Suite
from harness.pipeline import Context


def context_record(context: Context) -> dict[str, Any]:
    """The retrieved tiers with score attribution, as they go into the JSON report."""
    return {
        "prelude": context.prelude,
        "pinned": list(context.pinned),
        "relevant": [
            {
                "id": r.id,
                "rank": r.rank,
                "score": r.score,
                "matched": r.matched,
                "via": r.via,
                "clauses": [{"field": c.field, "term": c.term, "score": c.score} for c in r.clauses],
            }
            for r in context.relevant
        ],
        "open_questions": list(context.open_questions),
        "evicted": list(context.evicted),
        "tokens": context.tokens,
    }


@dataclass
class CaseResult(Fails):
    suite: str
    kind: str
    case_id: str
    backend: str
    mode: str
    query: str
    scopes: list[str]
    user: str
    category: str | None = None
    turn: int | None = None
    turn_label: str | None = None
    max_beliefs: int | None = None
    max_pinned_facts: int | None = None
    max_questions: int | None = None
    expected: dict[str, Any] = field(default_factory=dict)
    retrieved: dict[str, Any] = field(default_factory=dict)
    passed: bool = False
    reasons: list[str] = field(default_factory=list)
    error: str | None = None
    precision: float | None = None
    recall: float | None = None
    ndcg: float | None = None
    reciprocal_rank: float | None = None
    pass_type: str | None = None
    drift: float | None = None
    latency_ms: float | None = None
    backend_lost: bool = False

    @property
    def item_id(self) -> str:
        return self.case_id if self.turn is None else f"{self.case_id}#{self.turn}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def asked(
    suite: Suite,
    backend: str,
    kind: str,
    case_id: str,
    user: str | None,
    mode: str,
    query: str,
    scopes: Sequence[str],
    budget: Budget | None,
    expect: Expect,
    **where: Any,
) -> CaseResult:
    """A belief case's row before retrieval, on any system: what was asked, and what the case expects."""
    return CaseResult(
        suite=suite.name,
        kind=kind,
        case_id=case_id,
        backend=backend,
        mode=mode,
        query=query,
        scopes=list(scopes),
        user=user or suite.corpus.default_user,
        max_beliefs=budget.max_beliefs if budget else None,
        max_pinned_facts=budget.max_pinned_facts if budget else None,
        max_questions=budget.max_questions if budget else None,
        expected=expect.model_dump(exclude_none=True, exclude_defaults=True),
        **where,
    )
