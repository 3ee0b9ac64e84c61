"""The memory layer under test: scope and user isolation, supersession, pinned facts, open
questions, persona prelude and budgets over any `Index`. See cases/README.md for the semantics;
where suites' authors differ, the suite's `Ruleset` says how."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from harness import tokens
from harness.backends.base import Backend, Clause, Filters, Hit, Index, IndexSpec
from harness.metrics.evaluate import rank_key
from harness.models import UNIVERSAL_SCOPE, Memory, MemoryType, Status
from harness.pipeline.context import Context, Retrieved
from harness.pipeline.fusion import ranks, rrf
from harness.pipeline.matching import WordMatcher
from harness.pipeline.prelude import persona_prelude
from harness.pipeline.query_cleanup import clean_query
from harness.pipeline.ruleset import BUILTIN_RULES, Ruleset
from harness.pipeline.settings import Mode, PipelineSettings
from harness.pipeline.surface import (
    ATTRIBUTES,
    embedding_text,
    field_text,
    index_doc,
    of_kinds,
    phrases,
    visible_filters,
)
from harness.text import tokenize

_RETRIEVABLE_KINDS = frozenset(t.value for t in MemoryType if t is not MemoryType.OPEN_QUESTION)


class TextEmbedder(Protocol):
    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class Request:
    """What a context is asked for. The pipeline's budget is `max_beliefs`; `max_pinned_facts` and
    `max_questions` are a case's other budget fields, which a leaderboard's adapter reads
    (`context_rules.ContextBudget`)."""

    user: str
    scopes: tuple[str, ...]
    query: str
    max_beliefs: int | None = None
    max_pinned_facts: int | None = None
    max_questions: int | None = None


def memory_vectors(
    embedder: TextEmbedder | None, memories: Sequence[Memory], fields: Mapping[str, float], as_written: bool
) -> Sequence[np.ndarray | None]:
    """Each memory's vector of its embedding text, or None for each without an embedder: what the
    pipeline indexes, and so what its engine search (`engine_search.py`) indexes too."""
    if embedder is None:
        return [None] * len(memories)
    return list(embedder.embed([embedding_text(m, fields, as_written) for m in memories]))


class MemoryPipeline:
    """Owns the memory records; the engine behind `Index` does the searching and filtering."""

    def __init__(
        self,
        index: Index,
        settings: PipelineSettings,
        embedder: TextEmbedder | None = None,
        rules: Ruleset = BUILTIN_RULES,
    ):
        self._index = index
        self._settings = settings
        self._embedder = embedder
        self._rules = rules
        self._matcher = WordMatcher(rules.fuzzy_min_length, rules.fuzzy_prefix, rules.fuzzy_multiword)
        self._store: dict[str, Memory] = {}
        self._phrases: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self._vocabulary: set[str] = set()

    @classmethod
    def open(
        cls,
        backend: Backend,
        namespace: str,
        settings: PipelineSettings,
        embedder: TextEmbedder | None = None,
        rules: Ruleset = BUILTIN_RULES,
    ) -> MemoryPipeline:
        """A pipeline on a fresh namespace; vectors are indexed only when an embedder is given."""
        spec = IndexSpec(dict(settings.fields), embedder.dimensions if embedder else None, ATTRIBUTES)
        return cls(backend.create_index(namespace, spec), settings, embedder, rules)

    @property
    def index(self) -> Index:
        return self._index

    def memory(self, memory_id: str) -> Memory:
        return self._store[memory_id]

    # -- writes -------------------------------------------------------------------------------

    def load(self, memories: Sequence[Memory]) -> None:
        vectors = self._vectors(memories)
        fields, live = self._settings.fields, self._rules.live
        self._index.load([index_doc(m, fields, v, live(m)) for m, v in zip(memories, vectors, strict=True)])
        for memory in memories:
            self._remember(memory)
        self._index.wait_ready(len(self._store), timeout=60.0)

    def put(self, memory: Memory) -> None:
        """Create or replace one memory; the next query sees it, BM25 statistics included."""
        (vector,) = self._vectors([memory])
        self._index.upsert([index_doc(memory, self._settings.fields, vector, self._rules.live(memory))])
        self._remember(memory)

    def add_aliases(self, memory_id: str, aliases: Sequence[str]) -> None:
        self.put(self._store[memory_id].with_aliases(tuple(aliases)))

    def _remember(self, memory: Memory) -> None:
        self._store[memory.id] = memory
        self._phrases[memory.id] = [
            (text, words) for text, words in phrases(memory, self._settings.fields) if self._rules.searchable(text)
        ]
        self._vocabulary.update(w for _, words in self._phrases[memory.id] for w in words)

    def _vectors(self, memories: Sequence[Memory]) -> Sequence[np.ndarray | None]:
        return memory_vectors(self._embedder, memories, self._settings.fields, self._rules.embed_name_as_written)

    # -- reads --------------------------------------------------------------------------------

    def retrieve(self, request: Request, mode: Mode = Mode.BM25) -> Context:
        rules = self._rules
        own = [m for m in self._store.values() if m.user == request.user and rules.live(m)]
        session = frozenset(request.scopes)
        with_universal = session | {UNIVERSAL_SCOPE}
        scopes = with_universal if rules.universal_in_every_scope else session
        visible = {m.id: m for m in own if not scopes.isdisjoint(m.scopes)}
        pinned = self._pinned(own, visible)
        pinned_ids = {m.id for m in pinned}
        filters = visible_filters(request.user, scopes)

        relevant: list[Retrieved] = []
        matched_questions: set[str] = set()
        searched = clean_query(request.query, rules.query_cleanup)
        if searched.strip():  # an empty query asks for nothing: no relevant tier in any mode
            lexical, matched_questions = self._lexical(tokenize(searched), filters, visible, pinned_ids)
            relevant = self._relevant(searched, mode, lexical, filters, visible, pinned_ids)

        questions = sorted(
            (
                m
                for m in visible.values()
                if m.type is MemoryType.OPEN_QUESTION
                and (m.pinned or (rules.open_questions_by_query and m.id in matched_questions))
            ),
            key=rules.pinned_key(),
        )
        max_beliefs = request.max_beliefs if request.max_beliefs is not None else rules.default_max_beliefs
        kept_pinned, kept_relevant, evicted = self._budget([m.id for m in pinned], relevant, max_beliefs)
        ranked_relevant = tuple(
            Retrieved(r.id, rank, r.score, r.clauses, r.matched, r.via) for rank, r in enumerate(kept_relevant, 1)
        )
        # the prelude is the harness's own construction: universal preferences are in it under every ruleset
        prelude = persona_prelude(m for m in own if not with_universal.isdisjoint(m.scopes))
        tier_ids = [*kept_pinned, *(r.id for r in ranked_relevant), *(m.id for m in questions)]
        rendered = " ".join(
            filter(None, [prelude, *(self._store[i].content or field_text(self._store[i], "name") for i in tier_ids)])
        )
        return Context(
            prelude=prelude,
            pinned=tuple(kept_pinned),
            relevant=ranked_relevant,
            open_questions=tuple(m.id for m in questions),
            evicted=tuple(evicted),
            tokens=tokens.count(rendered),
        )

    def _pinned(self, own: Sequence[Memory], visible: dict[str, Memory]) -> list[Memory]:
        """Pinned, live, not open questions, in scope (or, where the rules say so, user-edited)."""
        rules = self._rules

        def eligible(m: Memory) -> bool:
            if not m.pinned or m.type is MemoryType.OPEN_QUESTION:
                return False
            if rules.pinned_requires_active_status and m.status is not Status.ACTIVE:
                return False
            if not rules.pinned_allows_universal and UNIVERSAL_SCOPE in m.scopes:
                return False
            return m.id in visible or (rules.pinned_user_edited_any_scope and m.user_edited)

        return sorted(filter(eligible, own), key=rules.pinned_key())[: rules.pinned_limit]

    def _relevant(
        self,
        query: str,
        mode: Mode,
        lexical: list[Retrieved],
        filters: Filters,
        visible: dict[str, Memory],
        pinned_ids: set[str],
    ) -> list[Retrieved]:
        if mode is Mode.BM25:
            return lexical
        vector = self._vector(query, filters, visible, pinned_ids)
        if mode is Mode.VECTOR:
            return [Retrieved(h.id, 0, h.score, h.clauses, None, "vector") for h in vector]
        fused = rrf(
            {"bm25": ranks([r.id for r in lexical]), "vector": ranks(vector)},
            self._rules.vector_limit,
            self._settings.rrf_k,
        )
        why = {r.id: r.matched for r in lexical}
        return [Retrieved(h.id, 0, h.score, h.clauses, why.get(h.id), "hybrid") for h in fused]

    def _may_be_relevant(self, memory_id: str, pinned_ids: set[str]) -> bool:
        memory = self._store[memory_id]
        return (
            memory_id not in pinned_ids
            and memory.type is not MemoryType.OPEN_QUESTION
            and memory.subtype not in self._rules.relevant_excluded_subtypes
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
            elif self._may_be_relevant(hit.id, pinned_ids):
                gated.append((hit, phrase))
        found = {hit.id for hit, _ in gated}
        expanded = [Retrieved(h.id, 0, h.score, h.clauses, phrase, "lexical") for h, phrase in gated]
        for hit, _ in gated:
            for participant in (
                self._store[hit.id].participants if self._store[hit.id].type is MemoryType.RELATION else ()
            ):
                if (
                    participant in visible
                    and participant not in found
                    and self._may_be_relevant(participant, pinned_ids)
                ):
                    found.add(participant)
                    score = hit.score * self._settings.relation_decay
                    expanded.append(
                        Retrieved(
                            participant, 0, score, (Clause("relation", hit.id, score),), None, f"relation:{hit.id}"
                        )
                    )
        return sorted(expanded, key=lambda r: rank_key(r.score, r.id)), questions

    def _vector(self, query: str, filters: Filters, visible: dict[str, Memory], pinned_ids: set[str]) -> list[Hit]:
        """Cosine top-k, no score floor; pinned memories and excluded subtypes make room for others."""
        if self._embedder is None:
            raise ValueError("vector and hybrid modes need a pipeline opened with an embedder")
        (query_vector,) = self._embedder.embed([query])
        k = self._rules.vector_limit
        retrievable = of_kinds(filters, _RETRIEVABLE_KINDS)
        skipped = sum(1 for memory_id in visible if not self._may_be_relevant(memory_id, pinned_ids))
        hits = self._index.vector(query_vector, retrievable, k + skipped)
        return [h for h in hits if self._may_be_relevant(h.id, pinned_ids)][:k]

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
