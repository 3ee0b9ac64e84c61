"""The memory record every suite maps onto: beliefs, open questions, dataset turns alike."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

UNIVERSAL_SCOPE = "user:universal"


def _check_scopes(scopes: tuple[str, ...]) -> tuple[str, ...]:
    for scope in scopes:
        kind, _, value = scope.partition(":")
        if not ((kind == "domain" and value) or scope == UNIVERSAL_SCOPE):
            raise ValueError(f"scope {scope!r} is not 'domain:<name>' or {UNIVERSAL_SCOPE!r}")
    return scopes


Scopes = Annotated[tuple[str, ...], Field(min_length=1), AfterValidator(_check_scopes)]
"""`domain:<name>` scopes, or `user:universal` (in every session)."""


class MemoryType(StrEnum):
    PREFERENCE = "preference"
    DECISION = "decision"
    ENTITY = "entity"
    RELATION = "relation"
    OPEN_QUESTION = "open_question"
    FACT = "fact"
    TURN = "turn"


class Status(StrEnum):
    ACTIVE = "active"
    INFERRED = "inferred"
    EXPLORATORY = "exploratory"
    SUPERSEDED = "superseded"


class Label(StrEnum):
    """Ground-truth quality label (Mnemonic style); never read by retrieval."""

    SIGNAL = "signal"
    NOISE = "noise"
    DUPLICATE = "duplicate"


class Memory(BaseModel):
    """One stored memory. `name` and `aliases` are its retrieval surface; `content` is payload."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    user: str = Field(min_length=1)
    type: MemoryType
    subtype: str | None = None
    name: str = ""
    aliases: tuple[str, ...] = ()
    content: str = ""
    scopes: Scopes
    status: Status = Status.ACTIVE
    superseded_by: str | None = None
    resolved_at: datetime | None = None
    pinned: bool = False
    user_edited: bool = False
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    reinforcement_count: int = Field(default=0, ge=0)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_reinforced_at: datetime | None = None
    label: Label | None = None
    topics: tuple[str, ...] = ()
    relation_type: str | None = None
    participants: tuple[str, ...] = ()

    @property
    def injectable(self) -> bool:
        """Superseded memories and resolved open questions are kept for audit, never injected."""
        return self.status is not Status.SUPERSEDED and self.superseded_by is None and self.resolved_at is None

    def with_aliases(self, extra: tuple[str, ...]) -> Memory:
        merged = self.aliases + tuple(a for a in extra if a not in self.aliases)
        return self.model_copy(update={"aliases": merged})
