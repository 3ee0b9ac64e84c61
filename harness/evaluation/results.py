"""One row per static case or session turn: what came back, what was expected, and the verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Self

from harness.backends.failures import connection_lost
from harness.messages import error_text
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


class Errs:
    """A result row that records an exception as its error, and whether the server went with it:
    the run goes on, and the runner's verdict counts it."""

    error: str | None
    backend_lost: bool

    def fail_with(self, exc: Exception) -> Self:
        self.error = error_text(exc)
        self.backend_lost = connection_lost(exc)
        return self

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """A report's record of the row read back (`to_json`'s inverse; fields a report adds beside
        the row's own, as per-turn ratios, are left out)."""
        own = {f.name for f in fields(cls)}  # type: ignore[arg-type]  # every row is a dataclass
        return cls(**{name: value for name, value in data.items() if name in own})


class Fails(Errs):
    """A result row with a verdict and its reasons: an error also fails it, as its first reason."""

    reasons: list[str]
    passed: bool

    def fail_with(self, exc: Exception) -> Self:
        super().fail_with(exc)
        self.reasons.append(f"error: {self.error}")
        self.passed = False
        return self


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
        expected=expect.model_dump(exclude_none=True, exclude_defaults=True),
        **where,
    )
