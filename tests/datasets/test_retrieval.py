"""Retrieval over one haystack on the embedded backend: modes, granularities, fusion, aggregation."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from harness.backends.base import Filters, Hit
from harness.backends.embedded import EmbeddedBackend, EmbeddedIndex
from harness.models.haystack import Document, Granularity, Haystack
from harness.pipeline.fusion import RRF_K, rrf
from harness.pipeline.haystack import (
    HaystackIndex,
    by_session,
    contextual_vectors,
    embedding_texts,
    layers,
    query_terms,
)
from harness.pipeline.settings import Mode

from .builders import BagOfWordsEncoder

DOCS = (
    Document("a:1", "a", "Can you suggest a banana bread recipe?", "user", None),
    Document("a:2", "a", "Mash bananas, add flour and bake.", "assistant", None),
    Document("b:1", "b", "I graduated with a degree in Business Administration.", "user", None),
    Document("b:2", "b", "Congratulations!", "assistant", None),
    Document("c:1", "c", "My commute to work is 45 minutes.", "user", None),
)
HAYSTACK = Haystack("h", DOCS, ())


def _index(granularity: Granularity, modes: list[Mode]) -> HaystackIndex:
    vectors = BagOfWordsEncoder().encode(embedding_texts(HAYSTACK)) if any(m.needs_vectors for m in modes) else None
    return HaystackIndex(EmbeddedBackend(), "t", HAYSTACK, granularity, modes, vectors)


def _query(text: str) -> tuple[list[str], np.ndarray]:
    return query_terms(text), BagOfWordsEncoder().encode([text])[0]


@pytest.mark.parametrize("mode", list(Mode))
def test_turn_runs_rank_the_gold_turn_first_and_score_sessions_by_max(mode: Mode) -> None:
    index = _index(Granularity.TURN, [mode])
    rankings = index.search(mode, *_query("What degree did I graduate with?"))

    assert rankings[Granularity.TURN][0].id == "b:1"
    assert rankings[Granularity.SESSION][0].id == "b"
    assert rankings[Granularity.SESSION][0].score == pytest.approx(rankings[Granularity.TURN][0].score)


@pytest.mark.parametrize("mode", list(Mode))
def test_session_runs_rank_sessions(mode: Mode) -> None:
    index = _index(Granularity.SESSION, [mode])
    rankings = index.search(mode, *_query("how long is my commute to work"))
    assert list(rankings) == [Granularity.SESSION]
    assert rankings[Granularity.SESSION][0].id == "c"


def test_bm25_needs_its_own_granularity_vectors_turns_and_hybrid_both() -> None:
    assert layers(Granularity.SESSION, [Mode.BM25]) == {Granularity.SESSION}
    assert layers(Granularity.SESSION, [Mode.VECTOR]) == {Granularity.TURN}
    assert layers(Granularity.TURN, [Mode.HYBRID]) == {Granularity.TURN}
    assert layers(Granularity.SESSION, [Mode.HYBRID]) == {Granularity.SESSION, Granularity.TURN}


def test_neighbouring_turns_are_searchable_context() -> None:
    """`Congratulations!` alone says nothing; its neighbour's words find it."""
    index = _index(Granularity.TURN, [Mode.BM25])
    hits = index.search(Mode.BM25, query_terms("business degree"), None)[Granularity.TURN]
    assert [h.id for h in hits] == ["b:1", "b:2"]


def test_context_vectors_mix_only_same_session_neighbours() -> None:
    vectors = np.eye(5, dtype=np.float32)
    mixed = contextual_vectors(DOCS, vectors)
    np.testing.assert_allclose(mixed[4], vectors[4])
    np.testing.assert_allclose(mixed[0], np.array([2, 1, 0, 0, 0]) / np.sqrt(5), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(mixed, axis=1), 1, atol=1e-6)


def test_an_all_stopword_question_finds_nothing_lexically() -> None:
    index = _index(Granularity.SESSION, [Mode.BM25])
    assert index.search(Mode.BM25, query_terms("what is it?"), None)[Granularity.SESSION] == []


def test_rrf_sums_reciprocal_ranks_and_breaks_ties_by_id() -> None:
    fused = rrf({"x": {"a": 1, "b": 2}, "y": {"b": 1, "c": 1}}, 10)
    assert [h.id for h in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert [c.term for c in fused[0].clauses] == ["x#2", "y#1"]


def test_weighted_rrf_scales_each_lists_share_and_leaves_out_a_list_weighted_zero() -> None:
    lists = {"x": {"a": 1, "b": 2}, "y": {"b": 1, "c": 1}}
    fused = rrf(lists, 10, weights={"x": 2.0, "y": 0.5})
    assert [(h.id, h.score) for h in fused] == [
        ("b", pytest.approx(2.0 / (RRF_K + 2) + 0.5 / (RRF_K + 1))),
        ("a", pytest.approx(2.0 / (RRF_K + 1))),
        ("c", pytest.approx(0.5 / (RRF_K + 1))),
    ]
    assert [h.id for h in rrf(lists, 10, weights={"x": 1.0, "y": 0.0})] == ["a", "b"]


def test_by_session_keeps_each_sessions_best_turn() -> None:
    hits = [Hit("a:2", 3.0), Hit("b:1", 2.0), Hit("a:1", 1.0)]
    sessions = by_session(hits, {"a:1": "a", "a:2": "a", "b:1": "b"}, 10)
    assert [(h.id, h.score) for h in sessions] == [("a", 3.0), ("b", 2.0)]


def test_drop_removes_the_namespaces() -> None:
    index = HaystackIndex(EmbeddedBackend(), "gone", HAYSTACK, Granularity.TURN, [Mode.BM25], None)
    engines = list(index._indexes.values())  # a private handle: checking clean-up
    assert engines
    index.drop()
    for engine in engines:  # each embedded namespace is a database, closed when dropped
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            engine.lexical(["x"], Filters(), 1)


def test_vector_modes_without_vectors_are_refused() -> None:
    with pytest.raises(ValueError, match="need turn vectors"):
        HaystackIndex(EmbeddedBackend(), "t", HAYSTACK, Granularity.TURN, [Mode.HYBRID], None)


def test_an_interrupted_load_stays_the_error_when_its_clean_up_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C mid-load, then a drop that fails (a connection the signal left mid-reply): the drop's
    error replaced the interruption, and the run went on as if a question had merely failed."""

    def interrupted(_self: object, _docs: object) -> None:
        raise KeyboardInterrupt

    def failing(_self: object) -> None:
        raise RuntimeError("a reply that is not this command's")

    monkeypatch.setattr(EmbeddedIndex, "load", interrupted)
    monkeypatch.setattr(EmbeddedIndex, "drop", failing)
    with pytest.raises(KeyboardInterrupt):
        HaystackIndex(EmbeddedBackend(), "cut", HAYSTACK, Granularity.TURN, [Mode.BM25], None)
