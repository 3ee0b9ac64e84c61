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
from harness.text import content_terms

FIELDS = {"summary": 1.0, "content": 1.0}
"""The searchable fields of a lifecycle memory and their BM25 weights."""

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

    def fields(self) -> dict[str, str]:
        return {"summary": " ".join(content_terms(self.summary)), "content": " ".join(content_terms(self.content))}


class LifecycleStore:
    def __init__(self, index: Index, texts: Mapping[str, MemoryText], vectors: Mapping[str, np.ndarray] | None):
        self._index = index
        self._texts = dict(texts)
        self._vectors = vectors

    @classmethod
    def open(
        cls,
        backend: Backend,
        namespace: str,
        texts: Sequence[MemoryText],
        vectors: Mapping[str, np.ndarray] | None,
        dimensions: int | None,
    ) -> LifecycleStore:
        """A fresh namespace; `vectors` are indexed only when `dimensions` is given."""
        index = backend.create_index(namespace, IndexSpec(FIELDS, dimensions, ATTRIBUTES))
        return cls(index, {t.id: t for t in texts}, vectors if dimensions else None)

    @property
    def ids(self) -> list[str]:
        return list(self._texts)

    def text(self, memory_id: str) -> MemoryText:
        return self._texts[memory_id]

    def _doc(self, record: MemoryRecord) -> IndexDoc:
        vector = None if self._vectors is None else self._vectors[record.id]
        return IndexDoc(record.id, self._texts[record.id].fields(), record.attributes(), vector)

    def load(self, records: Sequence[MemoryRecord]) -> None:
        self._index.load([self._doc(r) for r in records])
        self._index.wait_ready(len(records), timeout=60.0)

    def write(self, records: Iterable[MemoryRecord]) -> None:
        """Upsert the given records' state (callers pass the ones that changed)."""
        for record in records:
            self._index.upsert(self._doc(record))

    def records(self) -> dict[str, MemoryRecord]:
        """Every memory's state as the engine holds it now."""
        stored = self._index.attributes(self.ids)
        missing = [i for i in self.ids if i not in stored]
        if missing:
            raise RuntimeError(f"the index lost memories {missing[:3]}")
        return {i: MemoryRecord.from_attributes(i, stored[i]) for i in self.ids}

    def lexical(self, query: str, limit: int) -> list[Hit]:
        terms = list(dict.fromkeys(content_terms(query)))
        return self._index.lexical(terms, RETRIEVABLE, limit) if terms else []

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
