"""Conversation turns over a project: what each turn asks, and what its context must show.

A scenario is a conversation about one project folder; each turn's user message goes to
`prepare` (the context for the turn is built and checked), then the user message and the
simulated assistant reply go to `process` (facts the user stated are stored for later turns).
Every text check is a case-insensitive substring test on the rendered context.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from harness.models.project import RecordKind


class Category(StrEnum):
    """What a turn tests (the five categories of Acervo's benchmark)."""

    RESOLVE = "RESOLVE"
    """The message names no file: the memory must find the part of the project that answers it."""
    GROUND = "GROUND"
    """The answer is a fact of the project: the context holds it, and nothing the project lacks."""
    RECALL = "RECALL"
    """A fact the user stated earlier must come back (or, on the storing turn, be stored)."""
    FOCUS = "FOCUS"
    """The topic moves: the context follows it and drops the previous one; chat gets nothing."""
    ADAPT = "ADAPT"
    """The context's shape follows the intent: overview, a narrow area, or a return to a topic."""


class Intent(StrEnum):
    """What the message needs from the project (rules: `harness.pipeline.intent`)."""

    OVERVIEW = "overview"
    SPECIFIC = "specific"
    CHAT = "chat"


class Component(StrEnum):
    """The parts a turn is scored on, as Acervo names its stages."""

    INTENT = "intent"
    """S1: the classified intent equals the expected one."""
    ACTIVATION = "activation"
    """S2: kinds, label terms and node counts of the records put into the context."""
    BUDGET = "budget"
    """S3: the context's token count within the turn's bounds."""
    CONTENT = "content"
    """S3 and S1.5: the context's required and forbidden terms; facts stored after `process`."""


@dataclass(frozen=True, slots=True)
class TurnChecks:
    """Every assertion of one turn; empty or None means not asserted."""

    intent: Intent | None = None
    activate_kinds: tuple[RecordKind, ...] = ()
    not_activate_kinds: tuple[RecordKind, ...] = ()
    activate_labels: tuple[str, ...] = ()
    """Some record in the context has a label (path and title) holding one of these terms."""
    not_activate_labels: tuple[str, ...] = ()
    """No record in the context has a label containing any of these terms."""
    min_nodes: int | None = None
    max_nodes: int | None = None
    warm_tokens_min: int | None = None
    warm_tokens_max: int | None = None
    contains: tuple[str, ...] = ()
    contains_any: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()
    fact_terms: tuple[str, ...] = ()
    """After `process`, some stored fact contains each term (Acervo's entity and fact checks)."""

    def components(self) -> tuple[Component, ...]:
        """The components this turn asserts something about, in report order."""
        found = []
        if self.intent is not None:
            found.append(Component.INTENT)
        if (
            self.activate_kinds
            or self.not_activate_kinds
            or self.activate_labels
            or self.not_activate_labels
            or self.min_nodes is not None
            or self.max_nodes is not None
        ):
            found.append(Component.ACTIVATION)
        if self.warm_tokens_min is not None or self.warm_tokens_max is not None:
            found.append(Component.BUDGET)
        if self.contains or self.contains_any or self.not_contains or self.fact_terms:
            found.append(Component.CONTENT)
        return tuple(found)

    @property
    def answer_terms(self) -> tuple[tuple[str, ...], ...]:
        """What an answer needs, as groups of which one term each must be found: every
        `contains` term alone, and the `contains_any` terms as one group."""
        groups: list[tuple[str, ...]] = [(term,) for term in self.contains]
        if self.contains_any:
            groups.append(self.contains_any)
        return tuple(groups)


@dataclass(frozen=True, slots=True)
class ConversationTurn:
    number: int
    user: str
    assistant: str
    category: Category
    checks: TurnChecks
    notes: dict = field(default_factory=dict)
    """Fields of the file kept for the report but not scored (Acervo's effectiveness and agent
    estimates)."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One conversation over one project folder."""

    name: str
    project: Path | None
    """The project folder; None for a conversation with no project (Acervo's chat-only
    scenarios), whose memory holds only what the user states."""
    turns: tuple[ConversationTurn, ...]


@dataclass(frozen=True, slots=True)
class ConversationSuite:
    name: str
    scenarios: tuple[Scenario, ...]
    source: Path
    dropped: tuple[str, ...] = ()
    """One line per file field the import does not use (reported, never silently lost)."""
    unjudged: tuple[str, ...] = ()
    """One line per check or scenario kind the harness reads but cannot judge, and why (a
    model's extraction, an LLM-built graph)."""

    @property
    def turns(self) -> int:
        return sum(len(s.turns) for s in self.scenarios)
