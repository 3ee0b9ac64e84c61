"""The backend protocol: what every engine must do so the pipeline above it can stay unchanged.

Lexical contract (every backend, whatever its engine):
    score(doc, terms) = sum over fields f and distinct terms t of weight_f * bm25_f(t, doc)
where bm25_f is one BM25 on every engine, so scores are the same numbers everywhere:
    bm25_f(t, doc) = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)),  k1 = 1.2, b = 0.75
    idf = ln(1 + (N - n + 0.5) / (n + 0.5))
over field f alone, with statistics (document count N, document frequency n, average field
length) taken as Lucene does: over the documents of the index that have a non-empty field f,
whatever their attributes. Field text arrives analysed by `harness.text` (space-separated tokens);
engines split it on spaces and nothing else.
Each non-zero (field, term) contribution is returned as a `Clause`, so clauses sum to the score.
Filters restrict which documents are returned, never the statistics.

Attributes and filters carry no meaning here (users, scopes, liveness are the pipeline's): a
document has generic attributes, declared with their type in the `IndexSpec` so an engine can
build its columns, sets or index fields up front. A keyword attribute holds one string, a
keywords attribute a set of strings, a boolean attribute a bool; any may be absent (an empty set
is absent). Filters are a conjunction of `Eq`, `AnyOf`, `Present` and `Absent` conditions;
`Filters.admits` is the reference semantics every engine is tested against.

Results are ordered by score descending, then id ascending (the one tie-break used everywhere),
with scores rounded to 9 decimals first so float noise between engines cannot reorder ties.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np

from harness.metrics.evaluate import rank_key


class AttributeType(StrEnum):
    KEYWORD = "keyword"
    KEYWORDS = "keywords"
    BOOLEAN = "boolean"


Value = str | frozenset[str] | bool
"""An attribute's value: one keyword, a set of keywords, or a bool."""

BM25_K1 = 1.2
BM25_B = 0.75
"""The contract's BM25 parameters (k1, b), the same on every engine."""

_ATTRIBUTE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class IndexDoc:
    """What a backend stores for one document: analysed field text, attributes, a vector.
    Sets of keywords become frozensets, and empty ones are dropped (an empty set is absent)."""

    id: str
    fields: Mapping[str, str]
    attributes: Mapping[str, Value] = field(default_factory=dict)
    vector: np.ndarray | None = None

    def __post_init__(self) -> None:
        normal = {
            name: frozenset(value) if isinstance(value, set | frozenset | tuple | list) else value
            for name, value in self.attributes.items()
        }
        object.__setattr__(self, "attributes", {k: v for k, v in normal.items() if v != frozenset()})

    def values(self, attribute: str) -> frozenset[str | bool]:
        """The attribute's values as a set: empty when absent, one element for a single value."""
        value = self.attributes.get(attribute)
        if value is None:
            return frozenset()
        return value if isinstance(value, frozenset) else frozenset({value})


@dataclass(frozen=True, slots=True)
class Eq:
    """The attribute has `value` (one of its values, for a keywords attribute)."""

    attribute: str
    value: str | bool

    @property
    def accepted(self) -> list[str | bool]:
        """The values it accepts, as `AnyOf.accepted` gives them (engines translate both alike)."""
        return [self.value]

    def admits(self, doc: IndexDoc) -> bool:
        return self.value in doc.values(self.attribute)


@dataclass(frozen=True, slots=True)
class AnyOf:
    """The attribute has at least one of `values`; an empty set admits nothing."""

    attribute: str
    values: frozenset[str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", frozenset(self.values))

    @property
    def accepted(self) -> list[str]:
        """The values, sorted: a query built from them is the same text for the same filter."""
        return sorted(self.values)

    def admits(self, doc: IndexDoc) -> bool:
        return not self.values.isdisjoint(doc.values(self.attribute))


@dataclass(frozen=True, slots=True)
class Present:
    attribute: str

    def admits(self, doc: IndexDoc) -> bool:
        return bool(doc.values(self.attribute))


@dataclass(frozen=True, slots=True)
class Absent:
    attribute: str

    def admits(self, doc: IndexDoc) -> bool:
        return not doc.values(self.attribute)


Condition = Eq | AnyOf | Present | Absent


@dataclass(frozen=True, slots=True, init=False)
class Filters:
    """A conjunction of conditions; none means unrestricted."""

    conditions: tuple[Condition, ...]

    def __init__(self, *conditions: Condition) -> None:
        object.__setattr__(self, "conditions", conditions)

    @property
    def unrestricted(self) -> bool:
        return not self.conditions

    @property
    def admits_nothing(self) -> bool:
        """An empty any-of: engines answer it without asking (some reject an empty list)."""
        return any(isinstance(c, AnyOf) and not c.values for c in self.conditions)

    def admits(self, doc: IndexDoc) -> bool:
        """Reference semantics, for engines that filter in Python and for tests."""
        return all(c.admits(doc) for c in self.conditions)


@dataclass(frozen=True, slots=True)
class Clause:
    """One scored part of a hit: a (field, term) BM25 contribution, a cosine, an RRF share."""

    field: str
    term: str
    score: float


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    score: float
    clauses: tuple[Clause, ...] = ()


@dataclass(frozen=True, slots=True)
class IndexSpec:
    """Searchable fields with their weights, the vector size (None: no vector index), and the
    attributes documents may carry and filters may name, with their types. Attribute names start
    with a letter (letters, digits, _), so engines can use them in identifiers and keys."""

    fields: Mapping[str, float]
    dimensions: int | None = None
    attributes: Mapping[str, AttributeType] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, kind in self.attributes.items():
            if not _ATTRIBUTE_NAME.match(name):
                raise ValueError(f"attribute name must match {_ATTRIBUTE_NAME.pattern}: {name!r}")
            AttributeType(kind)

    def check_doc(self, doc: IndexDoc) -> None:
        """Every attribute declared, each of its declared type."""
        for name, value in doc.attributes.items():
            kind = self.attributes.get(name)
            if kind is None:
                raise ValueError(f"document {doc.id!r}: attribute {name!r} is not declared in the index spec")
            if not _holds(kind, value):
                raise ValueError(f"document {doc.id!r}: attribute {name!r} is {kind}, not {value!r}")

    def check_filters(self, filters: Filters) -> None:
        """Every condition on a declared attribute, with a value of its type."""
        for condition in filters.conditions:
            kind = self.attributes.get(condition.attribute)
            if kind is None:
                raise ValueError(f"filter on attribute {condition.attribute!r}, which the index spec does not declare")
            if isinstance(condition, Eq) and isinstance(condition.value, bool) != (kind is AttributeType.BOOLEAN):
                raise ValueError(f"filter {condition}: attribute {condition.attribute!r} is {kind}")
            if isinstance(condition, AnyOf) and kind is AttributeType.BOOLEAN:
                raise ValueError(f"filter {condition}: any-of needs a keyword attribute")


def stored_value(kind: AttributeType, value: object) -> Value:
    """An attribute as an engine hands it back (a list, a 0/1 integer, a string) in `Value` form."""
    if kind is AttributeType.BOOLEAN:
        return bool(int(value)) if isinstance(value, str) else bool(value)
    if kind is AttributeType.KEYWORDS:
        return frozenset(value) if isinstance(value, list | tuple | set | frozenset) else frozenset({str(value)})
    return str(value)


def _holds(kind: AttributeType, value: Value) -> bool:
    if kind is AttributeType.BOOLEAN:
        return isinstance(value, bool)
    if kind is AttributeType.KEYWORD:
        return isinstance(value, str)
    return isinstance(value, frozenset) and all(isinstance(v, str) for v in value)


@dataclass(frozen=True, slots=True)
class BackendInfo:
    """What the report records about the engine that produced the numbers."""

    backend: str
    engine: str
    server_version: str
    lexical_scorer: str
    vector_engine: str | None
    notes: tuple[str, ...] = field(default=())


class Index(Protocol):
    """One isolated namespace (table set, key prefix, collection) inside a backend."""

    def load(self, docs: Sequence[IndexDoc]) -> None:
        """Bulk insert into an empty index; an attribute the spec does not declare, or of another
        type, is a `ValueError` (`IndexSpec.check_doc`)."""

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        """Insert or replace each of `docs` (distinct ids); visible, statistics included, to the
        next query. A batch: a step that changes many documents pays one round trip, not one each."""

    def wait_ready(self, expected: int, timeout: float) -> None:
        """Block until `expected` documents are searchable, or raise `BackendUnavailable`."""

    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        """The stored attributes of each of `ids` the index holds (ids it does not hold are left
        out; absent attributes too), as the next query filters on them: written state read back."""

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        """BM25 per the module contract over the documents `filters` admits (`Filters.admits`);
        documents matching no term are not returned. Filters on undeclared attributes, or with a
        value of another type, are a `ValueError` (`IndexSpec.check_filters`)."""

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        """Top `limit` admitted documents by cosine similarity (score = cosine), one `vector` clause each."""

    def drop(self) -> None:
        """Remove the namespace and everything in it."""


class Backend(Protocol):
    """An engine's client. A run's worker threads (`--concurrency`) share it: each namespace is
    written by one thread at a time and may be read by several, and namespaces never share state,
    so a backend keeps per-thread what its client cannot share (postgres: a connection each)."""

    name: str

    def info(self) -> BackendInfo: ...

    def create_index(self, namespace: str, spec: IndexSpec) -> Index:
        """A fresh, empty namespace; an existing one of that name is replaced."""

    def close(self) -> None: ...


def ranked(hits: Sequence[Hit], limit: int) -> list[Hit]:
    return sorted(hits, key=lambda h: rank_key(h.score, h.id))[:limit]


def unit(vector: np.ndarray) -> np.ndarray:
    """Float32 unit vector, so cosine is a dot product on every engine."""
    v = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm else v
