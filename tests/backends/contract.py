"""The backend contract as reusable checks: every backend module's tests call these.

Engines differ in their BM25 constants and idf, so exact scores are checked per backend against
its documented formula (`bm25_reference`); everything else here is engine-independent.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable

import numpy as np
from hypothesis import strategies as st

from harness.backends.base import Backend, Filters, IndexDoc, IndexSpec

WEIGHTS = {"name": 1.0, "aliases": 2.0}
BM25 = Callable[[int, int, int, int, float], float]
"""(term frequency, document frequency, document count, field length, average length) -> score."""


def namespace(name: str) -> str:
    return f"{name}{uuid.uuid4().hex[:10]}"


def doc(
    doc_id: str, name: str, aliases: str, user: str = "u", scopes=("domain:a",), live=True, kind="entity", vector=None
) -> IndexDoc:
    return IndexDoc(
        doc_id,
        user,
        scopes,
        kind,
        live,
        {"name": name, "aliases": aliases},
        None if vector is None else np.asarray(vector, dtype=np.float32),
    )


CORPUS = [
    doc("a", "postgres database", "pg psql postgres", vector=[1, 0, 0]),
    doc("b", "redis cache", "kv store", vector=[0, 1, 0]),
    doc("c", "message queue", "kafka", vector=[0, 0, 1]),
    doc("d", "search engine", "elastic search", vector=[1, 1, 0]),
    doc("e", "object store", "s3 buckets", vector=[0, 1, 1]),
]


def field_stats(docs: list[IndexDoc], field: str, term: str) -> tuple[int, int, float]:
    """(documents having the field, of them containing the term, their average field length)."""
    having = [d.fields[field].split() for d in docs if d.fields[field]]
    return len(having), sum(term in words for words in having), sum(map(len, having)) / len(having)


def check_bm25_formula(backend: Backend, bm25: BM25) -> None:
    """Per-field BM25 with field weights; (field, term) clauses add up to the score."""
    index = backend.create_index(namespace("cf"), IndexSpec(WEIGHTS))
    index.load(CORPUS)
    index.wait_ready(len(CORPUS), 30)
    (hit,) = index.lexical(["postgres", "pg"], Filters(), 10)
    expected = {}
    for field, term, length in (("name", "postgres", 2), ("aliases", "postgres", 3), ("aliases", "pg", 3)):
        n_docs, df, avg = field_stats(CORPUS, field, term)
        expected[(field, term)] = WEIGHTS[field] * bm25(1, df, n_docs, length, avg)
    got = {(c.field, c.term): c.score for c in hit.clauses}
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-5), (key, got[key], value)
    assert math.isclose(hit.score, sum(c.score for c in hit.clauses), rel_tol=1e-9)
    index.drop()


def check_statistics_ignore_filters(backend: Backend, bm25: BM25) -> None:
    """Filtered-out documents (other users, not live) still count in N, df and average length;
    documents with an empty field do not count for that field."""
    docs = [
        *CORPUS,
        doc("x", "kafka", "kafka streams", user="other"),
        doc("y", "kafka", "kafka", live=False),
        doc("z", "no aliases at all", ""),
    ]
    index = backend.create_index(namespace("cs"), IndexSpec(WEIGHTS))
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.lexical(["kafka"], Filters(user="u"), 10)
    assert [h.id for h in hits] == ["c"]
    n_docs, df, avg = field_stats(docs, "aliases", "kafka")
    assert (n_docs, df) == (7, 3)
    expected = 2.0 * bm25(1, df, n_docs, 1, avg)
    assert math.isclose(hits[0].score, expected, rel_tol=1e-5)
    index.drop()


def check_filters_and_order(backend: Backend, docs: list[IndexDoc], filters: Filters, terms: list[str]) -> None:
    """Exactly the admitted documents matching a term, ordered by score then id."""
    index = backend.create_index(namespace("cp"), IndexSpec(WEIGHTS))
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.lexical(terms, filters, 100)
    expected = {
        d.id for d in docs if filters.admits(d) and any(t in " ".join(d.fields.values()).split() for t in terms)
    }
    assert {h.id for h in hits} == expected
    keys = [(-round(h.score, 9), h.id) for h in hits]
    assert keys == sorted(keys)
    index.drop()


def check_vector_top_k(backend: Backend, docs: list[IndexDoc], filters: Filters, query: np.ndarray, k: int) -> None:
    """Top k by cosine among admitted documents, score = cosine (exact engines, or ANN with enough candidates)."""
    index = backend.create_index(namespace("cv"), IndexSpec(WEIGHTS, dimensions=len(query)))
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.vector(query, filters, k)
    cos = {
        d.id: float(d.vector @ query / np.linalg.norm(d.vector) / np.linalg.norm(query))
        for d in docs
        if filters.admits(d)
    }
    expected = sorted(cos, key=lambda i: (-round(cos[i], 6), i))[:k]
    assert [h.id for h in hits] == expected
    assert np.allclose([h.score for h in hits], [cos[i] for i in expected], atol=1e-5)
    index.drop()


def check_upsert_is_exact(backend: Backend) -> None:
    """After an upsert the next query sees the new text with the same statistics as a fresh load."""
    index = backend.create_index(namespace("cu"), IndexSpec(WEIGHTS))
    index.load(CORPUS)
    index.wait_ready(len(CORPUS), 30)
    changed = doc("b", "redis cache", "kv store postgres")
    index.upsert(changed)
    upserted = index.lexical(["postgres"], Filters(), 10)
    fresh = backend.create_index(namespace("cu2"), IndexSpec(WEIGHTS))
    fresh.load([changed if d.id == "b" else d for d in CORPUS])
    fresh.wait_ready(len(CORPUS), 30)
    reference = fresh.lexical(["postgres"], Filters(), 10)
    assert {h.id for h in upserted} == {"a", "b"}
    for got, want in zip(upserted, reference, strict=True):
        assert got.id == want.id and math.isclose(got.score, want.score, rel_tol=1e-6)
    index.upsert(doc("b", "redis cache", "kv store"))
    assert {h.id for h in index.lexical(["postgres"], Filters(), 10)} == {"a"}
    index.drop()
    fresh.drop()


# Hypothesis strategies shared by every backend's property tests.
docs_strategy = st.lists(
    st.builds(
        doc,
        doc_id=st.uuids().map(lambda u: u.hex[:8]),
        name=st.lists(st.sampled_from("alpha beta gamma delta".split()), min_size=1, max_size=3).map(" ".join),
        aliases=st.lists(st.sampled_from("alpha beta epsilon".split()), max_size=3).map(" ".join),
        user=st.sampled_from(["u1", "u2"]),
        scopes=st.lists(
            st.sampled_from(["domain:a", "domain:b", "user:universal"]), min_size=1, max_size=2, unique=True
        ).map(tuple),
        live=st.booleans(),
        kind=st.sampled_from(["entity", "open_question"]),
    ),
    min_size=1,
    max_size=15,
    unique_by=lambda d: d.id,
)
filters_strategy = st.builds(
    Filters,
    user=st.sampled_from([None, "u1", "u2"]),
    scopes=st.sampled_from([None, frozenset({"domain:a"}), frozenset({"domain:b", "user:universal"})]),
    kinds=st.sampled_from([None, frozenset({"entity"})]),
    live_only=st.booleans(),
)
terms_strategy = st.lists(st.sampled_from("alpha beta gamma epsilon zeta".split()), min_size=1, max_size=3)
