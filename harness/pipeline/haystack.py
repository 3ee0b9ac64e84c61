"""Retrieval over one haystack through the backend protocol: bm25, vector, and hybrid, their fusion.

What is indexed (every backend gets the same analysed terms, the harness analyzer's):
- turns: `content` = `speaker: text` (weight 1) and `context` = the neighbouring turns of the
  same session (weight 0.5), since a reply often only makes sense with the line it answers;
  the vector is the turn's unit vector plus half of each neighbour's, renormalised;
- sessions: `content` = all their turns (weight 1), no vector.

Rankings per mode, at the run's granularity:
- bm25: BM25 over the turns (turn runs) or over the sessions (session runs);
- vector: cosine over the turns; a session scores its best turn (max);
- hybrid: the bm25 and vector rankings of that granularity fused by the encoder's `Fusion`
  (`HYBRID_FUSION`): a convex combination of their min-max normalised scores or weighted RRF, the
  vector ranking's share `s` and bm25's `1 - s`; share 0 is the bm25 ranking, share 1 the vector one.
Turn runs are also scored at session level: a session's score is the best of its turns (max).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import numpy as np

from harness.backends.base import Backend, Filters, Hit, Index, IndexDoc, IndexSpec, ranked
from harness.embeddings.packaged import DEFAULT_MODEL
from harness.models.haystack import Document, Granularity, Haystack
from harness.pipeline.fusion import convex, ranks, rrf
from harness.pipeline.settings import Mode
from harness.text import content_terms, content_text

DEPTH = 100
"""Each ranking is cut here (RRF fuses the top 100 of each list; MRR is in effect MRR@100)."""

CONTEXT_WEIGHT = 0.5
"""BM25 weight of a turn's neighbours relative to the turn itself."""

NEIGHBOUR_SHARE = 0.5
"""Share of each neighbouring turn's vector in a turn's vector."""

_EVERYTHING = Filters()


FusionMethod = Literal["convex", "rrf"]
"""convex: `(1 - s) x bm25 + s x cosine` over min-max normalised scores; rrf: weighted reciprocal
rank fusion, `(1 - s) / (k + bm25 rank) + s / (k + vector rank)`, k = `RRF_K` (60)."""


@dataclass(frozen=True, slots=True)
class Fusion:
    """How hybrid fuses bm25 and vector: the method and the vector ranking's share (bm25's is 1 - share)."""

    method: FusionMethod
    share: float

    def __str__(self) -> str:
        return f"{self.method} {self.share:g}"


HYBRID_FUSION: Mapping[str, Fusion] = MappingProxyType(
    {
        "all-MiniLM-L6-v2": Fusion("convex", 0.05),
        "all-MiniLM-L6-v2-int8": Fusion("convex", 0.15),
        "all-MiniLM-L6-v2-static": Fusion("convex", 0.0),
    }
)
"""Hybrid's fusion per encoder: chosen by `python -m harness.benchmarks.fusion_grid` on LoCoMo and
the LongMemEval oracle, never on LongMemEval-S, as the (method, share) whose worst margin over the
better of bm25 and vector (R@1, R@5, MRR; both sets, session and turn runs) is largest (docs/datasets.md,
"Hybrid weights", has the grids). Convex wins for every encoder: weighted RRF (k=60) loses more
somewhere at every positive weight (at 0.05, LoCoMo's turn R@1: 0.295 against bm25's 0.304 for
int8, 0.297 for float), where convex loses at most 0.002 (int8 at 0.15, float at 0.05). The static
encoder's cosine costs somewhere at every share tried, so its hybrid is bm25 (share 0). An encoder
not listed (a model path) gets the float model's fusion."""


def fusion_for(model: str | None) -> Fusion:
    """Hybrid's fusion for an encoder (`HYBRID_FUSION`)."""
    fusion = HYBRID_FUSION.get(model or DEFAULT_MODEL)
    return HYBRID_FUSION[DEFAULT_MODEL] if fusion is None else fusion


def turn_text(doc: Document) -> str:
    """What is indexed and embedded for a turn: the speaker's name can match a question's."""
    return f"{doc.speaker}: {doc.text}"


def embedding_texts(haystack: Haystack) -> list[str]:
    """Texts whose vectors a haystack needs, in document order."""
    return [turn_text(d) for d in haystack.documents]


def query_terms(text: str) -> list[str]:
    return content_terms(text)


def layers(granularity: Granularity, modes: Iterable[Mode]) -> set[Granularity]:
    """Which namespaces the modes need: bm25 its own granularity, vectors turns, hybrid both."""
    needed: set[Granularity] = set()
    for mode in modes:
        needed |= {granularity} if mode is Mode.BM25 else {Granularity.TURN}
        if mode is Mode.HYBRID:
            needed.add(granularity)
    return needed


def _neighbours(documents: Sequence[Document]) -> list[tuple[int | None, int | None]]:
    """Index of the previous and next turn of the same session, if any."""
    last = len(documents) - 1
    return [
        (
            i - 1 if i > 0 and documents[i - 1].session_id == doc.session_id else None,
            i + 1 if i < last and documents[i + 1].session_id == doc.session_id else None,
        )
        for i, doc in enumerate(documents)
    ]


def contextual_vectors(documents: Sequence[Document], vectors: np.ndarray) -> np.ndarray:
    """Each turn's vector plus NEIGHBOUR_SHARE of its same-session neighbours', unit length."""
    mixed = np.array(vectors, dtype=np.float32)
    for i, (before, after) in enumerate(_neighbours(documents)):
        for j in (before, after):
            if j is not None:
                mixed[i] += NEIGHBOUR_SHARE * vectors[j]
    return mixed / np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)


def _turn_docs(documents: Sequence[Document], analysed: Sequence[str], vectors: np.ndarray | None) -> list[IndexDoc]:
    mixed = None if vectors is None else contextual_vectors(documents, vectors)
    return [
        IndexDoc(
            id=doc.id,
            fields={
                "content": analysed[i],
                "context": " ".join(analysed[j] for j in neighbours if j is not None),
            },
            vector=None if mixed is None else mixed[i],
        )
        for i, (doc, neighbours) in enumerate(zip(documents, _neighbours(documents), strict=True))
    ]


def _session_docs(documents: Sequence[Document], analysed: Sequence[str]) -> list[IndexDoc]:
    """A session's terms are its turns' terms in order (no token spans two turns)."""
    terms: dict[str, list[str]] = {}
    for doc, text in zip(documents, analysed, strict=True):
        terms.setdefault(doc.session_id, []).append(text)
    return [IndexDoc(id=session, fields={"content": " ".join(parts)}) for session, parts in terms.items()]


class HaystackIndex:
    """One haystack loaded into fresh backend namespaces (`<ns>_turns`, `<ns>_sessions`) as needed."""

    def __init__(
        self,
        backend: Backend,
        namespace: str,
        haystack: Haystack,
        granularity: Granularity,
        modes: Sequence[Mode],
        turn_vectors: np.ndarray | None,
        timeout: float = 60.0,
        fusion: Fusion | None = None,
        analysed: Sequence[str] | None = None,
    ):
        """`fusion`: hybrid's (default: the float model's, `fusion_for`); `analysed`: each turn's
        `content_text(turn_text(turn))`, if already computed (ahead)."""
        if turn_vectors is None and any(m.needs_vectors for m in modes):
            raise ValueError("vector and hybrid modes need turn vectors")
        self.granularity = granularity
        self.fusion = fusion_for(None) if fusion is None else fusion
        self.session_of = {d.id: d.session_id for d in haystack.documents}
        self._indexes: dict[Granularity, Index] = {}
        needed = layers(granularity, modes)
        if analysed is None:
            analysed = [content_text(turn_text(d)) for d in haystack.documents]
        try:
            if Granularity.TURN in needed:
                dimensions = None if turn_vectors is None else int(turn_vectors.shape[1])
                spec = IndexSpec(fields={"content": 1.0, "context": CONTEXT_WEIGHT}, dimensions=dimensions)
                docs = _turn_docs(haystack.documents, analysed, turn_vectors)
                self._load(backend, Granularity.TURN, f"{namespace}_turns", spec, docs, timeout)
            if Granularity.SESSION in needed:
                spec = IndexSpec(fields={"content": 1.0})
                docs = _session_docs(haystack.documents, analysed)
                self._load(backend, Granularity.SESSION, f"{namespace}_sessions", spec, docs, timeout)
        except BaseException:
            with suppress(Exception):  # the first error (or the interruption) is the one to report
                self.drop()
            raise

    def _load(
        self,
        backend: Backend,
        level: Granularity,
        namespace: str,
        spec: IndexSpec,
        docs: list[IndexDoc],
        timeout: float,
    ) -> None:
        index = backend.create_index(namespace, spec)
        self._indexes[level] = index
        index.load(docs)
        index.wait_ready(len(docs), timeout)

    def search(self, mode: Mode, terms: Sequence[str], query_vector: np.ndarray | None) -> dict[Granularity, list[Hit]]:
        """Rankings for one question: at the run's granularity, and at session level for turn runs."""
        if mode is Mode.BM25:
            ranking = self.bm25(terms)
        elif mode is Mode.VECTOR:
            ranking = self.cosine(query_vector)
        else:
            ranking = hybrid(self.bm25(terms), self.cosine(query_vector), self.fusion)
        if self.granularity is Granularity.SESSION:
            return {Granularity.SESSION: ranking}
        return {Granularity.TURN: ranking, Granularity.SESSION: by_session(ranking, self.session_of, DEPTH)}

    def bm25(self, terms: Sequence[str]) -> list[Hit]:
        """BM25 at the run's granularity: what bm25 mode returns."""
        return self._lexical(self.granularity, terms)

    def cosine(self, query_vector: np.ndarray | None) -> list[Hit]:
        """Cosine over turns, at the run's granularity (a session by its best turn): what vector mode returns."""
        turns = self._vector(query_vector)
        return turns if self.granularity is Granularity.TURN else by_session(turns, self.session_of, DEPTH)

    def _lexical(self, level: Granularity, terms: Sequence[str]) -> list[Hit]:
        return self._indexes[level].lexical(terms, _EVERYTHING, DEPTH) if terms else []

    def _vector(self, query_vector: np.ndarray | None) -> list[Hit]:
        if query_vector is None:
            raise ValueError("vector and hybrid modes need a query vector")
        return self._indexes[Granularity.TURN].vector(query_vector, _EVERYTHING, DEPTH)

    def drop(self) -> None:
        for index in self._indexes.values():
            index.drop()
        self._indexes.clear()


def hybrid(bm25: Sequence[Hit], cosine: Sequence[Hit], fusion: Fusion) -> list[Hit]:
    """Hybrid's ranking: the bm25 and vector rankings fused by `fusion.method`, the vector ranking
    weighted `fusion.share` and bm25 `1 - fusion.share`."""
    weights = {"bm25": 1.0 - fusion.share, "vector": fusion.share}
    if fusion.method == "rrf":
        return rrf({"bm25": ranks(bm25), "vector": ranks(cosine)}, DEPTH, weights=weights)
    return convex({"bm25": bm25, "vector": cosine}, weights, DEPTH)


def by_session(hits: Sequence[Hit], session_of: Mapping[str, str], limit: int) -> list[Hit]:
    """Sessions ranked by their best turn's score (max aggregation)."""
    best: dict[str, float] = {}
    for hit in hits:
        session = session_of[hit.id]
        best[session] = max(best.get(session, hit.score), hit.score)
    return ranked([Hit(s, score) for s, score in best.items()], limit)
