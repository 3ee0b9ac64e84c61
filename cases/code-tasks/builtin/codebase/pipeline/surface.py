"""What of a memory the engine sees: field texts, and the attributes the memory layer filters on
(the engine knows none of their meaning); phrases for the relevance rule."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from harness.backends.base import AnyOf, AttributeType, Eq, Filters, IndexDoc, Value
from harness.models import Memory
from harness.text import content_terms, tokenize

ATTRIBUTES = {
    "user": AttributeType.KEYWORD,
    "scope": AttributeType.KEYWORDS,
    "kind": AttributeType.KEYWORD,
    "live": AttributeType.BOOLEAN,
}
"""A memory's owner, its scopes, its type and whether it may be injected (`Memory.injectable`)."""


def visible_filters(user: str, scopes: frozenset[str]) -> Filters:
    """Live memories of `user` sharing a scope with `scopes`."""
    return Filters(Eq("user", user), AnyOf("scope", scopes), Eq("live", True))


def owned_filters(user: str) -> Filters:
    """Live memories of `user`, whatever their scopes."""
    return Filters(Eq("user", user), Eq("live", True))


def of_kinds(filters: Filters, kinds: frozenset[str]) -> Filters:
    """`filters`, restricted to memories of these types."""
    return Filters(*filters.conditions, AnyOf("kind", kinds))


def field_text(memory: Memory, field: str) -> str:
    """Raw text of one searchable field."""
    if field == "name":
        return memory.name.replace("_", " ")
    if field == "aliases":
        return ", ".join(memory.aliases)
    if field == "content":
        return memory.content
    raise ValueError(f"unknown searchable field {field!r} (name, aliases, content)")


def phrases(memory: Memory, fields: Mapping[str, float]) -> list[tuple[str, tuple[str, ...]]]:
    """(source text, words) units that can make a memory relevant.

    Name and each alias are whole phrases; content is prose, so each of its content words is a
    unit of its own (which is why searching content trades precision away).
    """
    units: list[tuple[str, tuple[str, ...]]] = []
    if "name" in fields and memory.name:
        units.append((memory.name, tuple(tokenize(memory.name))))
    if "aliases" in fields:
        units.extend((alias, tuple(tokenize(alias))) for alias in memory.aliases)
    if "content" in fields:
        units.extend((word, (word,)) for word in dict.fromkeys(content_terms(memory.content)))
    return [(text, words) for text, words in units if words]


def embedding_text(memory: Memory, fields: Mapping[str, float], as_written: bool = False) -> str:
    """The text a memory is embedded from: its searchable fields, in order. `as_written`: the
    name as stored (underscores kept) and each alias, joined by spaces, as Tenure embeds them."""
    if as_written:
        parts = {"name": [memory.name], "aliases": list(memory.aliases), "content": [memory.content]}
        return " ".join(text for f in fields for text in parts[f] if text)
    return ". ".join(text for f in fields if (text := field_text(memory, f)))


def index_doc(memory: Memory, fields: Mapping[str, float], vector: np.ndarray | None, live: bool) -> IndexDoc:
    analysed = {
        f: " ".join(content_terms(field_text(memory, f)) if f == "content" else tokenize(field_text(memory, f)))
        for f in fields
    }
    attributes: dict[str, Value] = {
        "user": memory.user,
        "scope": frozenset(memory.scopes),
        "kind": memory.type.value,
        "live": live,
    }
    return IndexDoc(id=memory.id, fields=analysed, attributes=attributes, vector=vector)
