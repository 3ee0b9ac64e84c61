"""The reference system: the harness's own engine path, spoken through the system protocol.

The kinds run the reference system on their own code path (`harness.pipeline`: every number
exactly as before systems existed); this adapter is that engine path for generic records (text
indexed as BM25 content and, with an encoder, as a vector; user and scopes as filters; hybrid by
RRF), so code that speaks only the protocol, as the HTTP test server, stores and searches as the
harness does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from harness import __version__
from harness.backends.base import AnyOf, AttributeType, Eq, Filters, Index, IndexDoc, IndexSpec, Value
from harness.pipeline.fusion import ranks, rrf
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.systems.protocol import (
    REFERENCE,
    Capability,
    Found,
    Opening,
    Query,
    Record,
    SystemInfo,
    SystemSpec,
    Unsupported,
)
from harness.text import content_terms

_ATTRIBUTES = {"user": AttributeType.KEYWORD, "scope": AttributeType.KEYWORDS}
_CAPABILITIES = frozenset({Capability.USERS, Capability.SCOPES, Capability.REPLACE})


class ReferenceSystem:
    """Records in one index of the run's engine, under the opening's namespace."""

    def __init__(self, opening: Opening):
        self._opening = opening
        # vectors only where the engine has a vector index (Valkey has none): its modes say so
        self._embedder: TextEmbedder | None = (
            opening.embedder if opening.backend.info().vector_engine is not None else None
        )
        self._texts: dict[str, str] = {}
        self._index: Index = self._create()
        modes = (Mode.BM25, Mode.VECTOR, Mode.HYBRID) if self._embedder is not None else (Mode.BM25,)
        self._info = SystemInfo(REFERENCE, __version__, _CAPABILITIES, modes)

    def _create(self) -> Index:
        dimensions = self._embedder.dimensions if self._embedder is not None else None
        spec = IndexSpec({"content": 1.0}, dimensions, _ATTRIBUTES)
        return self._opening.backend.create_index(self._opening.namespace, spec)

    @property
    def info(self) -> SystemInfo:
        return self._info

    def reset(self) -> None:
        self._index.drop()
        self._texts.clear()
        self._index = self._create()

    def add(self, records: Sequence[Record]) -> None:
        vectors = (
            list(self._embedder.embed([r.text for r in records]))
            if self._embedder is not None and records
            else [None] * len(records)
        )
        for record, vector in zip(records, vectors, strict=True):
            attributes: dict[str, Value] = {"user": record.user, "scope": frozenset(record.scopes)}
            fields = {"content": " ".join(content_terms(record.text))}
            self._index.upsert(IndexDoc(record.id, fields, attributes, vector))
            self._texts[record.id] = record.text
        self._index.wait_ready(len(self._texts), timeout=60.0)

    def search(self, query: Query, mode: Mode) -> list[Found]:
        conditions: list[Eq | AnyOf] = [Eq("user", query.user)]
        if query.scopes:
            conditions.append(AnyOf("scope", frozenset(query.scopes)))
        filters = Filters(*conditions)
        lexical = (
            self._index.lexical(content_terms(query.text), filters, query.limit) if mode is not Mode.VECTOR else []
        )
        hits = lexical
        if mode is not Mode.BM25:
            if self._embedder is None:
                raise ValueError("vector and hybrid modes need an encoder")
            (vector,) = self._embedder.embed([query.text])
            vectors = self._index.vector(vector, filters, query.limit)
            hits = (
                vectors if mode is Mode.VECTOR else rrf({"bm25": ranks(lexical), "vector": ranks(vectors)}, query.limit)
            )
        return [Found(h.id, h.score, self._texts.get(h.id)) for h in hits[: query.limit]]

    def advance(self, now: datetime) -> None:  # noqa: ARG002 - not declared: refused
        raise Unsupported(REFERENCE, Capability.CLOCK)

    def consolidate(self) -> None:
        raise Unsupported(REFERENCE, Capability.CONSOLIDATION)

    def record_access(self, ids: Sequence[str]) -> None:  # noqa: ARG002 - not declared: refused
        raise Unsupported(REFERENCE, Capability.ACCESS)

    def close(self) -> None:
        self._index.drop()
        self._texts.clear()


NATIVE = SystemInfo(REFERENCE, __version__, frozenset(Capability), (Mode.BM25, Mode.VECTOR, Mode.HYBRID))
"""The reference system as the kinds run it, on their own path: every semantics of every suite."""

SPEC = SystemSpec(REFERENCE, ReferenceSystem, "the harness's own memory pipeline (the default)")
