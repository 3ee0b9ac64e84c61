"""The memory record every suite maps onto: beliefs, open questions, dataset turns alike."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from harness.limits import MAX_ID_CHARS, MAX_TEXT_CHARS, MAX_WORD_CHARS
from harness.text import tokenize

UNIVERSAL_SCOPE = "user:universal"


def _writable(value: Any) -> None:
    """Reports are UTF-8: a lone surrogate (JSON `"\\ud800"`) would parse, run, then fail to write."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"contains a lone surrogate (U+{ord(value[exc.start]):04X}) at character {exc.start}: "
                "text must be valid Unicode (UTF-8 writable)"
            ) from None
    elif isinstance(value, list | tuple):
        for item in value:
            _writable(item)


class Record(BaseModel):
    """Base of every suite record: strict, frozen, and every text writable as UTF-8."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _utf8(cls, value: Any) -> Any:
        _writable(value)  # nested records (dicts here) check their own fields, so errors name them
        return value


def _check_identifier(value: str) -> str:
    if "\x00" in value:
        raise ValueError("contains a NUL character (U+0000), which PostgreSQL text cannot store")
    return value


def _check_words(value: str) -> str:
    longest = max(tokenize(value), key=len, default="")
    if len(longest) > MAX_WORD_CHARS:
        raise ValueError(
            f"has a word of {len(longest)} characters; words are at most {MAX_WORD_CHARS} (Lucene's token limit)"
        )
    return value


Identifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS), AfterValidator(_check_identifier)]
"""Memory ids, users and scopes: 1 to 255 characters, no NUL."""
Text = Annotated[str, Field(max_length=MAX_TEXT_CHARS), AfterValidator(_check_words)]
"""Searchable text: at most 100,000 characters, no word over 255."""


def _check_scopes(scopes: tuple[str, ...]) -> tuple[str, ...]:
    for scope in scopes:
        kind, _, value = scope.partition(":")
        if not ((kind == "domain" and value) or scope == UNIVERSAL_SCOPE):
            raise ValueError(f"scope {scope!r} is not 'domain:<name>' or {UNIVERSAL_SCOPE!r}")
    return scopes


Scopes = Annotated[tuple[Identifier, ...], Field(min_length=1), AfterValidator(_check_scopes)]
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


class Memory(Record):
    """One stored memory. `name` and `aliases` are its retrieval surface; `content` is payload."""

    id: Identifier
    user: Identifier
    type: MemoryType
    subtype: Identifier | None = None
    name: Text = ""
    aliases: tuple[Text, ...] = ()
    content: Text = ""
    rationale: Text = ""
    """Why it matters (Tenure's `why_it_matters`): never searched by the reference pipeline, but
    part of the text PrecisionMemBench's adapter sends a system (`pipeline/context_rules.add_text`)."""
    scopes: Scopes
    status: Status = Status.ACTIVE
    superseded_by: Identifier | None = None
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
    participants: tuple[Identifier, ...] = ()

    @property
    def injectable(self) -> bool:
        """Superseded memories and resolved open questions are kept for audit, never injected."""
        return self.status is not Status.SUPERSEDED and self.superseded_by is None and self.resolved_at is None

    def with_aliases(self, extra: tuple[str, ...]) -> Memory:
        merged = self.aliases + tuple(a for a in extra if a not in self.aliases)
        return self.model_copy(update={"aliases": merged})
