"""A suite: one corpus plus the static and session cases that run against it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness.models.cases import SessionCase, StaticCase
from harness.models.memory import Memory


@dataclass(frozen=True)
class Corpus:
    memories: tuple[Memory, ...]
    default_user: str

    @classmethod
    def with_majority_user(cls, memories: tuple[Memory, ...]) -> Corpus:
        """For formats that leave the default user implicit: the user owning most memories."""
        counts = Counter(m.user for m in memories)
        return cls(memories, min(counts, key=lambda u: (-counts[u], u)))


@dataclass(frozen=True)
class Suite:
    name: str
    corpus: Corpus
    static_cases: tuple[StaticCase, ...] = ()
    session_cases: tuple[SessionCase, ...] = ()
    sources: tuple[Path, ...] = field(default=(), compare=False)
    ruleset: str = "builtin"
    """Name of the rules the suite is judged by (`harness.pipeline.ruleset`)."""
    warnings: tuple[str, ...] = ()
    """What the loader could not keep (one line each), for `cases validate` to print."""
