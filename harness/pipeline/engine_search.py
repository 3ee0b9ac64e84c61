"""The reference pipeline's engine search without its tiering: the candidates an adapter wraps.

A leaderboard's adapter (`context_rules.py`) builds the tiers around a system's search, so to judge
the reference pipeline that way only its search is wrapped: memories indexed as the pipeline
indexes them (its fields, its encoder over its embedding text of a memory) and a query answered
with the user's live memories in a mode: vector, cosine top-`limit`; bm25, the engine's BM25 hits
for the query's words; hybrid, the pipeline's RRF of the two; the query as the adapter gives it (no
clean-up, no fuzzy terms). Liveness is the caller's (the
adapter's reader filters `superseded_by` and `resolved_at`); nothing else is filtered or cut: no
phrase gate, no scope, no pinned, question or subtype exclusion, no budget (the adapter's reader
does those).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from harness.backends.base import Backend, Hit, Index, IndexSpec
from harness.models import Memory
from harness.pipeline.fusion import ranks, rrf
from harness.pipeline.memory_layer import TextEmbedder, memory_vectors
from harness.pipeline.settings import Mode, PipelineSettings
from harness.pipeline.surface import ATTRIBUTES, index_doc, owned_filters
from harness.text import tokenize


class EngineSearch:
    """One namespace of the run's engine holding memories as the reference pipeline indexes them.

    `as_written`: the ruleset's embedding text (`Ruleset.embed_name_as_written`); `live`: which
    memories a search may return.
    """

    def __init__(
        self,
        index: Index,
        settings: PipelineSettings,
        embedder: TextEmbedder | None,
        as_written: bool,
        live: Callable[[Memory], bool],
    ):
        self._index = index
        self._settings = settings
        self._embedder = embedder
        self._as_written = as_written
        self._live = live

    @classmethod
    def open(
        cls,
        backend: Backend,
        namespace: str,
        settings: PipelineSettings,
        embedder: TextEmbedder | None,
        as_written: bool,
        live: Callable[[Memory], bool],
    ) -> EngineSearch:
        """A fresh namespace; vectors are indexed only when an embedder is given."""
        spec = IndexSpec(dict(settings.fields), embedder.dimensions if embedder else None, ATTRIBUTES)
        return cls(backend.create_index(namespace, spec), settings, embedder, as_written, live)

    @property
    def index(self) -> Index:
        return self._index

    def load(self, memories: Sequence[Memory]) -> None:
        """Index the memories of a fresh namespace; they are searchable when it returns."""
        vectors = self._vectors(memories)
        fields = self._settings.fields
        self._index.load([index_doc(m, fields, v, self._live(m)) for m, v in zip(memories, vectors, strict=True)])
        self._index.wait_ready(len(memories), timeout=60.0)

    def put(self, memory: Memory) -> None:
        """Create or replace one memory; the next search sees it."""
        (vector,) = self._vectors([memory])
        self._index.upsert([index_doc(memory, self._settings.fields, vector, self._live(memory))])

    def search(self, text: str, user: str, limit: int, mode: Mode) -> list[Hit]:
        """The user's live memories for `text` in `mode`, best first, at most `limit`."""
        filters = owned_filters(user)
        lexical: list[Hit] = []
        if mode is not Mode.VECTOR and (terms := list(dict.fromkeys(tokenize(text)))):
            lexical = self._index.lexical(terms, filters, limit)
        if mode is Mode.BM25:
            return lexical
        if self._embedder is None:
            raise ValueError("vector and hybrid modes need an engine search opened with an embedder")
        (query_vector,) = self._embedder.embed([text])
        vector = self._index.vector(query_vector, filters, limit)
        if mode is Mode.VECTOR:
            return vector
        return rrf({"bm25": ranks(lexical), "vector": ranks(vector)}, limit, self._settings.rrf_k)

    def _vectors(self, memories: Sequence[Memory]) -> Sequence[np.ndarray | None]:
        return memory_vectors(self._embedder, memories, self._settings.fields, self._as_written)
