"""Lifecycle memories in a backend namespace: text and vectors written once, state as attributes.

The texts are the pipeline's (they never change); the state is the engine's: every read of a
memory's state asks the index (`Index.attributes`), every change is an `Index.upsert`, and
retrieval's entry points are filtered by the engine on `state`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness.backends.base import AnyOf, Backend, Filters, Hit, Index, IndexDoc, IndexSpec
from harness.models.scenario import RETRIEVABLE_STATES
from harness.pipeline.lifecycle.records import ATTRIBUTES, MemoryRecord
from harness.text import content_terms, tokenize

FIELDS = {"summary": 1.0, "content": 1.0}
"""The searchable fields of a lifecycle memory and their BM25 weights."""
CONCEPT_FIELD = "concepts"
"""The concept tags' field, searched under rules that index them (weight 1, as FTS5's columns)."""

RETRIEVABLE = Filters(AnyOf("state", frozenset(s.value for s in RETRIEVABLE_STATES)))


@dataclass(frozen=True, slots=True)
class MemoryText:
    id: str
    summary: str
    content: str
    concepts: tuple[str, ...]

    @property
    def text(self) -> str:
        return f"{self.summary} {self.content}".strip()

    def row(self, concepts: bool = False) -> list[str]:
        """Every token of the memory's text as one row (no stop word dropped): FTS5's document."""
        return tokenize(" ".join((self.summary, self.content, *(self.concepts if concepts else ()))))

    def fields(self, concepts: bool = False) -> dict[str, str]:
        """Analysed field text; `concepts`: the concept tags too, as one field."""
        fields = {"summary": " ".join(content_terms(self.summary)), "content": " ".join(content_terms(self.content))}
        if concepts:
            fields[CONCEPT_FIELD] = " ".join(content_terms(" ".join(self.concepts)))
        return fields


class LifecycleStore:
    def __init__(
        self,
        index: Index,
        texts: Mapping[str, MemoryText],
        vectors: Mapping[str, np.ndarray] | None,
        concepts: bool = False,
    ):
        self._index = index
        self._texts = dict(texts)
        self._vectors = vectors
        self._concepts = concepts
        self.vocabulary = sorted(
            {w for t in self._texts.values() for f in t.fields(concepts).values() for w in f.split()}
        )
        """Every indexed word, sorted (prefix terms expand against it)."""
        self.rows = {i: t.row(concepts) for i, t in self._texts.items()}
        """Each memory's tokens as one row, for row-level BM25."""

    @classmethod
    def open(
        cls,
        backend: Backend,
        namespace: str,
        texts: Sequence[MemoryText],
        vectors: Mapping[str, np.ndarray] | None,
        dimensions: int | None,
        concepts: bool = False,
    ) -> LifecycleStore:
        """A fresh namespace; `vectors` are indexed only when `dimensions` is given; `concepts`:
        the concept tags are a searched field."""
        fields = {**FIELDS, CONCEPT_FIELD: 1.0} if concepts else FIELDS
        index = backend.create_index(namespace, IndexSpec(fields, dimensions, ATTRIBUTES))
        return cls(index, {t.id: t for t in texts}, vectors if dimensions else None, concepts)

    @property
    def ids(self) -> list[str]:
        return list(self._texts)

    def text(self, memory_id: str) -> MemoryText:
        return self._texts[memory_id]

    def _doc(self, record: MemoryRecord) -> IndexDoc:
        vector = None if self._vectors is None else self._vectors[record.id]
        return IndexDoc(record.id, self._texts[record.id].fields(self._concepts), record.attributes(), vector)

    def load(self, records: Sequence[MemoryRecord]) -> None:
        self._index.load([self._doc(r) for r in records])
        self._index.wait_ready(len(records), timeout=60.0)

    def write(self, records: Iterable[MemoryRecord]) -> None:
        """Upsert the given records' state (callers pass the ones that changed), in one batch;
        a record given twice is written as its last version."""
        latest = {r.id: r for r in records}
        if latest:
            self._index.upsert([self._doc(r) for r in latest.values()])

    def records(self) -> dict[str, MemoryRecord]:
        """Every memory's state as the engine holds it now."""
        stored = self._index.attributes(self.ids)
        missing = [i for i in self.ids if i not in stored]
        if missing:
            raise RuntimeError(f"the index lost memories {missing[:3]}")
        return {i: MemoryRecord.from_attributes(i, stored[i]) for i in self.ids}

    def lexical(self, terms: Sequence[str], limit: int) -> list[Hit]:
        """The engine's BM25 hits for the (analysed) terms among retrievable memories."""
        return self._index.lexical(list(dict.fromkeys(terms)), RETRIEVABLE, limit) if terms else []

    def vector(self, query: np.ndarray, limit: int) -> dict[str, float]:
        """The engine's nearest retrievable memories, each scored by the float64 cosine of the
        pipeline's own vectors: engines that compute in float32 find the same memories but
        differ in the 7th digit, and a rounded score must not straddle a boundary on one."""
        if self._vectors is None:
            raise ValueError("this store was opened without vectors")
        wanted = np.asarray(query, dtype=np.float64)
        wanted = wanted / (np.linalg.norm(wanted) or 1.0)
        return {
            h.id: float(np.dot(np.asarray(self._vectors[h.id], dtype=np.float64), wanted))
            for h in self._index.vector(query, RETRIEVABLE, limit)
        }

    def drop(self) -> None:
        self._index.drop()
