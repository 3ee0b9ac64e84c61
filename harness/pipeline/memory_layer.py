"""The memory layer under test: scope and user isolation, supersession, pinned facts, open
questions, persona prelude and budgets over any `Index`. See cases/README.md for the semantics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from harness.backends.base import Backend, Clause, Filters, Hit, Index, IndexSpec, rank_key
from harness.models import UNIVERSAL_SCOPE, Memory, MemoryType, Status
from harness.pipeline.context import Context, Retrieved
from harness.pipeline.fusion import ranks, rrf
from harness.pipeline.matching import WordMatcher
from harness.pipeline.prelude import persona_prelude
from harness.pipeline.settings import Mode, PipelineSettings
from harness.pipeline.surface import embedding_text, field_text, index_doc, phrases
from harness.text import count_tokens, tokenize

_RETRIEVABLE_KINDS = frozenset(t.value for t in MemoryType if t is not MemoryType.OPEN_QUESTION)


class TextEmbedder(Protocol):
    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class Request:
    user: str
    scopes: tuple[str, ...]
    query: str
    max_beliefs: int | None = None


def _pinned_order(memory: Memory) -> tuple[float, int, str]:
    return (-memory.confidence, -memory.reinforcement_count, memory.id)


class MemoryPipeline:
    """Owns the memory records; the engine behind `Index` does the searching and filtering."""

    def __init__(self, index: Index, settings: PipelineSettings, embedder: TextEmbedder | None = None):
        self._index = index
        self._settings = settings
        self._embedder = embedder
        self._matcher = WordMatcher(settings.fuzzy_min_length, settings.fuzzy_prefix)
        self._store: dict[str, Memory] = {}
        self._phrases: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self._vocabulary: set[str] = set()

    @classmethod
    def open(
        cls, backend: Backend, namespace: str, settings: PipelineSettings, embedder: TextEmbedder | None = None
    ) -> MemoryPipeline:
        """A pipeline on a fresh namespace; vectors are indexed only when an embedder is given."""
        spec = IndexSpec(dict(settings.fields), embedder.dimensions if embedder else None)
        return cls(backend.create_index(namespace, spec), settings, embedder)

    @property
    def index(self) -> Index:
        return self._index

    def memory(self, memory_id: str) -> Memory:
        return self._store[memory_id]

    # -- writes -------------------------------------------------------------------------------

    def load(self, memories: Sequence[Memory]) -> None:
        vectors = self._vectors(memories)
        self._index.load([index_doc(m, self._settings.fields, v) for m, v in zip(memories, vectors, strict=True)])
        for memory in memories:
            self._remember(memory)
        self._index.wait_ready(len(self._store), timeout=60.0)

    def put(self, memory: Memory) -> None:
        """Create or replace one memory; the next query sees it, BM25 statistics included."""
        (vector,) = self._vectors([memory])
        self._index.upsert(index_doc(memory, self._settings.fields, vector))
        self._remember(memory)

    def add_aliases(self, memory_id: str, aliases: Sequence[str]) -> None:
        self.put(self._store[memory_id].with_aliases(tuple(aliases)))

    def _remember(self, memory: Memory) -> None:
        self._store[memory.id] = memory
        self._phrases[memory.id] = phrases(memory, self._settings.fields)
        self._vocabulary.update(w for _, words in self._phrases[memory.id] for w in words)

    def _vectors(self, memories: Sequence[Memory]) -> Sequence[np.ndarray | None]:
        if self._embedder is None:
            return [None] * len(memories)
        return list(self._embedder.embed([embedding_text(m, self._settings.fields) for m in memories]))

    # -- reads --------------------------------------------------------------------------------

    def retrieve(self, request: Request, mode: Mode = Mode.BM25) -> Context:
        scopes = frozenset(request.scopes) | {UNIVERSAL_SCOPE}
        visible = {
            m.id: m
            for m in self._store.values()
            if m.user == request.user and m.injectable and not scopes.isdisjoint(m.scopes)
        }
        pinned = sorted(
            (
                m
                for m in visible.values()
                if m.pinned and m.status is Status.ACTIVE and m.type is not MemoryType.OPEN_QUESTION
            ),
            key=_pinned_order,
        )
        pinned_ids = {m.id for m in pinned}
        filters = Filters(user=request.user, scopes=scopes, live_only=True)
        query_words = tokenize(request.query)

        lexical, matched_questions = self._lexical(query_words, filters, visible, pinned_ids)
        if mode is Mode.BM25:
            relevant = lexical
        else:
            vector = self._vector(request.query, filters, pinned_ids)
            if mode is Mode.VECTOR:
                relevant = [Retrieved(h.id, 0, h.score, h.clauses, None, "vector") for h in vector]
            else:
                fused = rrf(
                    {"bm25": ranks([r.id for r in lexical]), "vector": ranks(vector)},
                    self._settings.vector_k,
                    self._settings.rrf_k,
                )
                why = {r.id: r.matched for r in lexical}
                relevant = [Retrieved(h.id, 0, h.score, h.clauses, why.get(h.id), "hybrid") for h in fused]

        questions = sorted(
            (
                m
                for m in visible.values()
                if m.type is MemoryType.OPEN_QUESTION and (m.pinned or m.id in matched_questions)
            ),
            key=_pinned_order,
        )
        kept_pinned, kept_relevant, evicted = self._budget([m.id for m in pinned], relevant, request.max_beliefs)
        ranked_relevant = tuple(
            Retrieved(r.id, rank, r.score, r.clauses, r.matched, r.via) for rank, r in enumerate(kept_relevant, 1)
        )
        prelude = persona_prelude(visible.values())
        tier_ids = [*kept_pinned, *(r.id for r in ranked_relevant), *(m.id for m in questions)]
        rendered = " ".join(
            [prelude or "", *(self._store[i].content or field_text(self._store[i], "name") for i in tier_ids)]
        )
        return Context(
            prelude=prelude,
            pinned=tuple(kept_pinned),
            relevant=ranked_relevant,
            open_questions=tuple(m.id for m in questions),
            evicted=tuple(evicted),
            tokens=count_tokens(rendered),
        )

    def _lexical(
        self, query_words: list[str], filters: Filters, visible: dict[str, Memory], pinned_ids: set[str]
    ) -> tuple[list[Retrieved], set[str]]:
        """Gated BM25 hits plus one-hop relation expansion; also the open questions the query names."""
        if not query_words:
            return [], set()
        terms = self._matcher.expand(query_words, self._vocabulary)
        if not terms:
            return [], set()
        # Every matching memory: the phrase gate and the budget decide what stays, not an engine cap.
        hits = self._index.lexical(terms, filters, len(self._store))
        gated: list[tuple[Hit, str]] = []
        questions: set[str] = set()
        for hit in hits:
            phrase = next(
                (text for text, words in self._phrases[hit.id] if self._matcher.occurs(words, query_words)), None
            )
            if phrase is None:
                continue
            if self._store[hit.id].type is MemoryType.OPEN_QUESTION:
                questions.add(hit.id)
            elif hit.id not in pinned_ids:
                gated.append((hit, phrase))
        found = {hit.id for hit, _ in gated}
        expanded = [Retrieved(h.id, 0, h.score, h.clauses, phrase, "lexical") for h, phrase in gated]
        for hit, _ in gated:
            for participant in (
                self._store[hit.id].participants if self._store[hit.id].type is MemoryType.RELATION else ()
            ):
                target = visible.get(participant)
                if target and target.type is not MemoryType.OPEN_QUESTION and participant not in found | pinned_ids:
                    found.add(participant)
                    score = hit.score * self._settings.relation_decay
                    expanded.append(
                        Retrieved(
                            participant, 0, score, (Clause("relation", hit.id, score),), None, f"relation:{hit.id}"
                        )
                    )
        return sorted(expanded, key=lambda r: rank_key(r.score, r.id)), questions

    def _vector(self, query: str, filters: Filters, pinned_ids: set[str]) -> list[Hit]:
        if self._embedder is None:
            raise ValueError("vector and hybrid modes need a pipeline opened with an embedder")
        (query_vector,) = self._embedder.embed([query])
        k = self._settings.vector_k
        retrievable = Filters(filters.user, filters.scopes, _RETRIEVABLE_KINDS, filters.live_only)
        hits = self._index.vector(query_vector, retrievable, k + len(pinned_ids))
        return [h for h in hits if h.id not in pinned_ids][:k]

    @staticmethod
    def _budget(
        pinned: list[str], relevant: list[Retrieved], max_beliefs: int | None
    ) -> tuple[list[str], list[Retrieved], list[str]]:
        """Pinned fill the budget first, then relevant by rank; the rest is evicted."""
        if max_beliefs is None:
            return pinned, relevant, []
        kept_pinned = pinned[:max_beliefs]
        kept_relevant = relevant[: max_beliefs - len(kept_pinned)]
        evicted = pinned[len(kept_pinned) :] + [r.id for r in relevant[len(kept_relevant) :]]
        return kept_pinned, kept_relevant, evicted
