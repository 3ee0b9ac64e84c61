"""Case expectations in the Tenure / PrecisionMemBench sense, with snake_case names."""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum

from pydantic import Field, model_validator

from harness.models.memory import Identifier, Memory, Record, Scopes, Text


class TierExpect(Record):
    """Assertions on one tier. `should_only_include` is an exact set: precision and recall 1."""

    should_only_include: tuple[str, ...] | None = None
    must_include: tuple[str, ...] = ()
    must_exclude: tuple[str, ...] = ()

    @property
    def expected(self) -> tuple[str, ...] | None:
        """The set precision and recall are measured against, if the tier asserts one."""
        if self.should_only_include is not None:
            return self.should_only_include
        return self.must_include or None

    def ids(self) -> Iterator[tuple[str, str]]:
        for key in ("should_only_include", "must_include", "must_exclude"):
            for memory_id in getattr(self, key) or ():
                yield key, memory_id


class PreludeExpect(Record):
    """Persona prelude checks; substring checks are case-insensitive."""

    non_empty: bool | None = None
    is_null: bool | None = None
    contains: tuple[str, ...] = ()
    must_not_contain: tuple[str, ...] = ()


class NoiseExpect(Record):
    """Session turns: memories from drifted topics that must not surface among the relevant memories
    (relevant and pinned together under a ruleset that joins them); open questions are not checked."""

    must_not_surface: tuple[str, ...] = ()


class Expect(Record):
    relevant: TierExpect | None = None
    pinned: TierExpect | None = None
    open_questions: TierExpect | None = None
    prelude: PreludeExpect | None = None
    noise: NoiseExpect | None = None

    def ids(self) -> Iterator[tuple[str, str]]:
        """(field path, memory id) for every id the expectations name."""
        for tier in ("relevant", "pinned", "open_questions"):
            expect = getattr(self, tier)
            if expect is not None:
                for key, memory_id in expect.ids():
                    yield f"expect.{tier}.{key}", memory_id
        if self.noise is not None:
            for memory_id in self.noise.must_not_surface:
                yield "expect.noise.must_not_surface", memory_id


class Budget(Record):
    """`max_beliefs` caps pinned + relevant; the other two are read only by a leaderboard's adapter."""

    max_beliefs: int | None = Field(default=None, ge=0)
    max_pinned_facts: int | None = Field(default=None, ge=0)
    max_questions: int | None = Field(default=None, ge=0)


class StaticCase(Record):
    id: str = Field(min_length=1)
    description: str = ""
    category: str = "uncategorized"
    user: Identifier | None = None
    scopes: Scopes
    query: Text
    budget: Budget | None = None
    expect: Expect


class TurnLabel(StrEnum):
    ESTABLISHES_TOPIC = "establishes_topic"
    CONTINUATION = "continuation"
    IMPLICIT_CONTINUATION = "implicit_continuation"
    DRIFT = "drift"
    RE_ENTRY = "re_entry"


class AliasUpdate(Record):
    memory_id: str
    add_aliases: tuple[str, ...] = Field(min_length=1)


class Turn(Record):
    """One stateful turn: mutations apply before the turn's retrieval."""

    index: int = Field(ge=0)
    label: TurnLabel
    scopes: Scopes
    message: Text
    topics: tuple[str, ...] = ()
    create: Memory | None = None
    update: AliasUpdate | None = None
    budget: Budget | None = None
    expect: Expect


class SessionCase(Record):
    id: str = Field(min_length=1)
    description: str = ""
    user: Identifier | None = None
    turns: tuple[Turn, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _turns_in_order(self) -> SessionCase:
        indices = [turn.index for turn in self.turns]
        if indices != sorted(indices) or len(set(indices)) != len(indices):
            raise ValueError(f"turn indices must increase strictly, got {indices}")
        return self
