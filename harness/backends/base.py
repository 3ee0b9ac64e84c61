"""The backend protocol: what every engine must do so the pipeline above it can stay unchanged.

Lexical contract (every backend, whatever its engine):
    score(doc, terms) = sum over fields f and distinct terms t of weight_f * bm25_f(t, doc)
where bm25_f is one BM25 on every engine, so scores are the same numbers everywhere:
    bm25_f(t, doc) = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)),  k1 = 1.2, b = 0.75
    idf = ln(1 + (N - n + 0.5) / (n + 0.5))
over field f alone, with statistics (document count N, document frequency n, average field
length) taken as Lucene does: over the documents of the index that have a non-empty field f,
live or not, any user. Field text arrives analysed by `harness.text` (space-separated tokens);
engines split it on spaces and nothing else.
Each non-zero (field, term) contribution is returned as a `Clause`, so clauses sum to the score.
Filters restrict which documents are returned, never the statistics.

Results are ordered by score descending, then id ascending (the one tie-break used everywhere),
with scores rounded to 9 decimals first so float noise between engines cannot reorder ties.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from harness.metrics.evaluate import rank_key


@dataclass(frozen=True, slots=True)
class IndexDoc:
    """What a backend stores for one memory: analysed field text, filter attributes, a vector."""

    id: str
    user: str
    scopes: tuple[str, ...]
    kind: str
    live: bool
    fields: Mapping[str, str]
    vector: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Filters:
    """Conjunctive filters; `None` means unrestricted. Scopes match if any scope is shared."""

    user: str | None = None
    scopes: frozenset[str] | None = None
    kinds: frozenset[str] | None = None
    live_only: bool = True

    @property
    def unrestricted(self) -> bool:
        return self.user is None and self.scopes is None and self.kinds is None and not self.live_only

    def admits(self, doc: IndexDoc) -> bool:
        """Reference semantics, for engines that filter in Python and for tests."""
        return (
            (self.user is None or doc.user == self.user)
            and (self.scopes is None or not self.scopes.isdisjoint(doc.scopes))
            and (self.kinds is None or doc.kind in self.kinds)
            and (doc.live or not self.live_only)
        )


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
    """Searchable fields with their weights, and the vector size (None: no vector index)."""

    fields: Mapping[str, float]
    dimensions: int | None = None


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
        """Bulk insert into an empty index."""

    def upsert(self, doc: IndexDoc) -> None:
        """Insert or replace one document; visible, statistics included, to the next query."""

    def wait_ready(self, expected: int, timeout: float) -> None:
        """Block until `expected` documents are searchable, or raise `BackendUnavailable`."""

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        """BM25 per the module contract; documents matching no term are not returned."""

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        """Top `limit` by cosine similarity (score = cosine), one `vector` clause each."""

    def drop(self) -> None:
        """Remove the namespace and everything in it."""


class Backend(Protocol):
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
