"""Retrieval over one haystack through the backend protocol: bm25, vector, and hybrid by RRF.

What is indexed (every backend gets the same analysed terms, the harness analyzer's):
- turns: `content` = `speaker: text` (weight 1) and `context` = the neighbouring turns of the
  same session (weight 0.5), since a reply often only makes sense with the line it answers;
  the vector is the turn's unit vector plus half of each neighbour's, renormalised;
- sessions: `content` = all their turns (weight 1), no vector.

Rankings per mode, at the scored granularity:
- bm25: BM25 over the turns (turn runs) or over the sessions (session runs);
- vector: cosine over the turns; a session scores its best turn (max);
- hybrid: weighted RRF (k=60, `HYBRID_WEIGHTS`) over three turn rankings: BM25 of turns, cosine
  of turns, and the turns nested under BM25 of sessions (sessions in BM25 order, each session's
  turns in the order of the first two lists fused), so a turn gains from the session it is in;
  sessions score by max.
Turn runs are also scored at session level: a session's score is the best of its turns (max).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness.backends.base import Backend, Filters, Hit, Index, IndexDoc, IndexSpec, ranked
from harness.models.haystack import Document, Granularity, Haystack
from harness.pipeline.fusion import ranks, rrf
from harness.pipeline.settings import Mode
from harness.text import content_terms, content_text

DEPTH = 100
"""Each ranking is cut here (RRF fuses the top 100 of each list; MRR is in effect MRR@100)."""

CONTEXT_WEIGHT = 0.5
"""BM25 weight of a turn's neighbours relative to the turn itself."""

NEIGHBOUR_SHARE = 0.5
"""Share of each neighbouring turn's vector in a turn's vector."""

_EVERYTHING = Filters()


@dataclass(frozen=True, slots=True)
class HybridWeights:
    """Each list's share in hybrid's weighted RRF (a list weighted 0 is left out)."""

    bm25_turn: float
    vector_turn: float
    bm25_session: float

    def shares(self) -> dict[str, float]:
        return {"bm25:turn": self.bm25_turn, "vector:turn": self.vector_turn, "bm25:session": self.bm25_session}


HYBRID_WEIGHTS = HybridWeights(bm25_turn=1.0, vector_turn=0.1, bm25_session=0.5)
"""Chosen on LoCoMo and the LongMemEval oracle, never on LongMemEval-S (README, "Hybrid weights").
Equal weights let the MiniLM encoders' cosine (far weaker than BM25 on these sets) pull good
lexical hits down: hybrid lost to bm25 on every measure. At 1 / 0.1 / 0.5 the cosine mostly
breaks BM25's near-ties, which is where it helps."""


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
            needed.add(Granularity.SESSION)
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
        weights: HybridWeights | None = None,
        analysed: Sequence[str] | None = None,
    ):
        """`analysed`: each turn's `content_text(turn_text(turn))`, if already computed (ahead)."""
        if turn_vectors is None and any(m.needs_vectors for m in modes):
            raise ValueError("vector and hybrid modes need turn vectors")
        self.granularity = granularity
        self.weights = weights or HYBRID_WEIGHTS
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
        if self.granularity is Granularity.SESSION and mode is Mode.BM25:
            return {Granularity.SESSION: self._lexical(Granularity.SESSION, terms)}
        turns = self._turn_ranking(mode, terms, query_vector)
        sessions = by_session(turns, self.session_of, DEPTH)
        return (
            {Granularity.TURN: turns, Granularity.SESSION: sessions}
            if self.granularity is Granularity.TURN
            else {Granularity.SESSION: sessions}
        )

    def _turn_ranking(self, mode: Mode, terms: Sequence[str], query_vector: np.ndarray | None) -> list[Hit]:
        if mode is Mode.BM25:
            return self._lexical(Granularity.TURN, terms)
        vector = self._vector(query_vector)
        if mode is Mode.VECTOR:
            return vector
        lexical = self._lexical(Granularity.TURN, terms)
        return fuse(lexical, vector, self._lexical(Granularity.SESSION, terms), self.session_of, self.weights)

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


def fuse(
    lexical: Sequence[Hit],
    vector: Sequence[Hit],
    sessions: Sequence[Hit],
    session_of: Mapping[str, str],
    weights: HybridWeights,
) -> list[Hit]:
    """Hybrid's turn ranking: weighted RRF of BM25 turns, cosine turns, and the turns nested under
    BM25 sessions (sessions in BM25 order, each session's turns in the order of the first two fused)."""
    turn_lists = {"bm25:turn": ranks(lexical), "vector:turn": ranks(vector)}
    shares = weights.shares()
    session_ranks = ranks(sessions)
    order = [h.id for h in rrf(turn_lists, len(session_of), weights=shares)]
    fused = [turn for turn in order if session_of[turn] in session_ranks]
    nested = sorted(fused, key=lambda turn: session_ranks[session_of[turn]])[:DEPTH]
    return rrf({**turn_lists, "bm25:session": ranks(nested)}, DEPTH, weights=shares)


def by_session(hits: Sequence[Hit], session_of: Mapping[str, str], limit: int) -> list[Hit]:
    """Sessions ranked by their best turn's score (max aggregation)."""
    best: dict[str, float] = {}
    for hit in hits:
        session = session_of[hit.id]
        best[session] = max(best.get(session, hit.score), hit.score)
    return ranked([Hit(s, score) for s, score in best.items()], limit)
