"""What the pipeline hands the agent, with enough attribution to explain every retrieval."""

from __future__ import annotations

from dataclasses import dataclass

from harness.backends.base import Clause


@dataclass(frozen=True, slots=True)
class Retrieved:
    """One relevant-tier memory: its rank, score, the clauses behind the score, and why it passed."""

    id: str
    rank: int
    score: float
    clauses: tuple[Clause, ...]
    matched: str | None
    via: str


@dataclass(frozen=True, slots=True)
class Context:
    prelude: str | None
    pinned: tuple[str, ...]
    relevant: tuple[Retrieved, ...]
    open_questions: tuple[str, ...]
    evicted: tuple[str, ...]
    tokens: int

    @property
    def relevant_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.relevant)
