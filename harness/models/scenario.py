"""Lifecycle scenarios: labelled memories (or raw capture events) that live through consolidation.

A direct scenario seeds memories with ground-truth labels, typed weighted associations and
queries with expected ids; a raw-event scenario seeds capture events that the pipeline encodes
into memories itself, and its queries expect concepts. Labels and `duplicate_of` are ground
truth: retrieval and consolidation never read them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from harness.models.memory import Identifier, Label, Record, Text


class MemoryState(StrEnum):
    ACTIVE = "active"
    FADING = "fading"
    ARCHIVED = "archived"
    MERGED = "merged"


RETRIEVABLE_STATES = frozenset({MemoryState.ACTIVE, MemoryState.FADING})
"""States retrieval may return; archived and merged memories are kept but never surface."""

Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class ScenarioMemory(Record):
    id: Identifier
    label: Label
    summary: Text
    content: Text = ""
    concepts: tuple[Identifier, ...] = ()
    salience: Unit = 0.5
    age_minutes: float = Field(default=0.0, ge=0.0)
    """How long before the scenario's start the memory was created."""
    state: MemoryState = MemoryState.ACTIVE
    duplicate_of: Identifier | None = None
    """For a `duplicate`: the memory it restates (scores whether the merge kept the right one)."""

    @property
    def text(self) -> str:
        """What is embedded and compared: summary and content, as the upstream benchmark embeds them."""
        return f"{self.summary} {self.content}".strip()


class Association(Record):
    source_id: Identifier
    target_id: Identifier
    strength: float = Field(gt=0.0, le=1.0)
    relation_type: Identifier
    activation_count: int = Field(default=1, ge=0)


class ScenarioQuery(Record):
    query: Annotated[Text, Field(min_length=1)]
    expected_ids: tuple[Identifier, ...] = ()
    expected_concepts: tuple[Identifier, ...] = ()


class RawEvent(Record):
    id: Identifier
    source: Identifier
    """Capture channel: filesystem, terminal, mcp, clipboard, ..."""
    type: Identifier
    content: Annotated[Text, Field(min_length=1)]
    label: Label
    heuristic_score: Unit | None = None
    initial_salience: Unit | None = None
    concepts: tuple[Identifier, ...] = ()
    """Concept tags; when empty the encoder derives them from the content's words."""
    minute: float | None = Field(default=None, ge=0.0)
    """Capture time in minutes after the scenario's start (default: the event's position)."""
    project: Identifier | None = None


class Scenario(Record):
    name: Identifier
    func: str | None = None
    memories: tuple[ScenarioMemory, ...] = ()
    associations: tuple[Association, ...] = ()
    raw_events: tuple[RawEvent, ...] = ()
    signal_ids: tuple[Identifier, ...] = ()
    queries: Annotated[tuple[ScenarioQuery, ...], Field(min_length=1)]
    counts: dict[str, int] | None = None

    @property
    def id(self) -> str:
        """The scenario's name: what shards and reports key it by."""
        return self.name

    @property
    def raw(self) -> bool:
        """A raw-event scenario (the pipeline encodes its memories) rather than a direct one."""
        return bool(self.raw_events)

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        if bool(self.memories) == bool(self.raw_events):
            raise ValueError("a scenario has either memories or raw_events (exactly one of them)")
        ids = [m.id for m in self.memories] or [e.id for e in self.raw_events]
        if repeated := sorted(i for i, n in Counter(ids).items() if n > 1):
            raise ValueError(f"repeated ids {repeated}")
        known = set(ids)
        for association in self.associations:
            for end in (association.source_id, association.target_id):
                if end not in known:
                    raise ValueError(f"association names unknown memory {end!r}")
        for memory in self.memories:
            if memory.duplicate_of is not None and (
                memory.label is not Label.DUPLICATE or memory.duplicate_of not in known
            ):
                raise ValueError(f"memory {memory.id!r}: duplicate_of needs label 'duplicate' and a known memory id")
        for query in self.queries:
            wanted = query.expected_concepts if self.raw else query.expected_ids
            if not wanted:
                kind = "expected_concepts" if self.raw else "expected_ids"
                raise ValueError(f"query {query.query!r} has no {kind}")
            if unknown := sorted(set(query.expected_ids) - known):
                raise ValueError(f"query {query.query!r} expects unknown ids {unknown}")
        signal = {e.id for e in self.raw_events if e.label is Label.SIGNAL}
        if self.signal_ids and set(self.signal_ids) != signal:
            raise ValueError("signal_ids must be exactly the ids of the signal-labelled raw events")
        self._check_counts()
        return self

    def _check_counts(self) -> None:
        if self.counts is None:
            return
        labels = Counter(m.label.value for m in self.memories)
        labels.update(e.label.value for e in self.raw_events)
        actual = {
            "signal": labels["signal"],
            "noise": labels["noise"],
            "duplicate": labels["duplicate"],
            "associations": len(self.associations),
            "queries": len(self.queries),
            "raw_events": len(self.raw_events),
        }
        for key, value in self.counts.items():
            if key in actual and actual[key] != value:
                raise ValueError(f"counts.{key} is {value}, but the scenario has {actual[key]}")


@dataclass(frozen=True)
class LifecycleSuite:
    name: str
    scenarios: tuple[Scenario, ...]
    max_results: int = 5
    """Results per query (the retrieval's limit, and k of every @k metric)."""
    sources: tuple[Path, ...] = field(default=(), compare=False)
    warnings: tuple[str, ...] = ()
