"""What the belief kind needs of whatever answers its cases: namespaces that hold a suite's
memories, take a session turn's writes and build a context (its tiers) for a request in a mode.

The reference pipeline answers with every tier, the persona prelude and each score's clauses; a
protocol system answers with what its search returns, tiered by what it declares. Both say what
they declare as capabilities, so the runner asks those, never which adapter it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Protocol, TypeAlias

from harness.models import Memory, Suite, Turn
from harness.pipeline import Context, Mode
from harness.pipeline.memory_layer import Request
from harness.pipeline.ruleset import CaseKind, Ruleset
from harness.systems.protocol import Capability


class Construction(StrEnum):
    """What the reference pipeline builds beyond anything the system protocol returns; its value
    is how a case's reasons name it."""

    PRELUDE = "a persona prelude (the reference pipeline's own construction)"


Need: TypeAlias = Capability | Construction
"""A semantics a case's expectations rest on beyond ranking text against text."""


class Beliefs(Protocol):
    """One namespace of the answering side, with the memories loaded into it."""

    def load(self, memories: Sequence[Memory]) -> None:
        """Store the suite's memories; they are retrievable when it returns."""
        ...

    def mutate(self, turn: Turn) -> None:
        """Apply a session turn's writes: its new memory, its alias update."""
        ...

    def context(self, request: Request, mode: Mode) -> Context:
        """The tiers retrieved for `request` in `mode`."""
        ...

    def topics(self, memory_id: str) -> tuple[str, ...]:
        """The topics of a memory it holds (a session turn's drift counts off-topic memories)."""
        ...

    def close(self) -> None:
        """Remove what the namespace holds; a failure is raised, never swallowed."""
        ...


class BeliefPort(Protocol):
    """Whatever answers belief cases: it opens namespaces and declares what it offers."""

    @property
    def name(self) -> str:
        """How a case's reasons name it."""
        ...

    @property
    def capabilities(self) -> frozenset[Need]:
        """What it declares: a failed case resting on a need it lacks says so in its reasons."""
        ...

    def open(self, suite: Suite, rules: Ruleset, kind: CaseKind) -> Beliefs:
        """A fresh, empty namespace for `suite`'s cases of `kind`, judged by `rules`."""
        ...
