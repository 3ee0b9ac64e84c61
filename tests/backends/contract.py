"""The backend contract as reusable checks: every backend module's tests call these.

Engines differ in their BM25 constants and idf, so exact scores are checked per backend against
its documented formula (`bm25_reference`); everything else here is engine-independent.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from harness.backends.base import Backend, Filters, IndexDoc, IndexSpec

WEIGHTS = {"name": 1.0, "aliases": 2.0}
BM25 = Callable[[int, int, int, int, float], float]
"""(term frequency, document frequency, document count, field length, average length) -> score."""


def doc(doc_id: str, name: str, aliases: str, user: str = "u", scopes=("domain:a",), live=True, kind="entity", vector=None) -> IndexDoc:
    return IndexDoc(doc_id, user, scopes, kind, live, {"name": name, "aliases": aliases}, None if vector is None else np.asarray(vector, dtype=np.float32))


CORPUS = [
    doc("a", "postgres database", "pg psql postgres", vector=[1, 0, 0]),
    doc("b", "redis cache", "kv store", vector=[0, 1, 0]),
    doc("c", "message queue", "kafka", vector=[0, 0, 1]),
    doc("d", "search engine", "elastic search", vector=[1, 1, 0]),
    doc("e", "object store", "s3 buckets", vector=[0, 1, 1]),
]


def _lengths(docs, field):
    return [len(d.fields[field].split()) for d in docs]


def check_bm25_formula(backend: Backend, bm25: BM25) -> None:
    """Per-field BM25 with field weights; (field, term) clauses add up to the score."""
    index = backend.create_index("cf", IndexSpec(WEIGHTS))
    index.load(CORPUS)
    index.wait_ready(len(CORPUS), 30)
    (hit,) = index.lexical(["postgres", "pg"], Filters(), 10)
    avg_name, avg_alias = sum(_lengths(CORPUS, "name")) / 5, sum(_lengths(CORPUS, "aliases")) / 5
    expected = {
        ("name", "postgres"): 1.0 * bm25(1, 1, 5, 2, avg_name),
        ("aliases", "postgres"): 2.0 * bm25(1, 1, 5, 3, avg_alias),
        ("aliases", "pg"): 2.0 * bm25(1, 1, 5, 3, avg_alias),
    }
    got = {(c.field, c.term): c.score for c in hit.clauses}
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-5), (key, got[key], value)
    assert math.isclose(hit.score, sum(c.score for c in hit.clauses), rel_tol=1e-9)
    index.drop()


def check_statistics_ignore_filters(backend: Backend, bm25: BM25) -> None:
    """Filtered-out documents (other users, not live) still count in N, df and average length."""
    docs = [*CORPUS, doc("x", "kafka", "", user="other"), doc("y", "kafka", "", live=False)]
    index = backend.create_index("cs", IndexSpec(WEIGHTS))
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.lexical(["kafka"], Filters(user="u"), 10)
    assert [h.id for h in hits] == ["c"]
    expected = 2.0 * bm25(1, 1, 7, 1, sum(_lengths(docs, "aliases")) / 7)
    assert math.isclose(hits[0].score, expected, rel_tol=1e-5)
    index.drop()


def check_filters_and_order(backend: Backend, docs: list[IndexDoc], filters: Filters, terms: list[str]) -> None:
    """Exactly the admitted documents matching a term, ordered by score then id."""
    index = backend.create_index("cp", IndexSpec(WEIGHTS))
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.lexical(terms, filters, 100)
    expected = {d.id for d in docs if filters.admits(d) and any(t in " ".join(d.fields.values()).split() for t in terms)}
    assert {h.id for h in hits} == expected
    keys = [(-round(h.score, 9), h.id) for h in hits]
    assert keys == sorted(keys)
    index.drop()


def check_vector_top_k(backend: Backend, docs: list[IndexDoc], filters: Filters, query: np.ndarray, k: int) -> None:
    """Top k by cosine among admitted documents, score = cosine (exact engines, or ANN with enough candidates)."""
    index = backend.create_index("cv", IndexSpec(WEIGHTS, dimensions=len(query)))
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.vector(query, filters, k)
    cos = {
        d.id: float(d.vector @ query / np.linalg.norm(d.vector) / np.linalg.norm(query)) for d in docs if filters.admits(d)
    }
    expected = sorted(cos, key=lambda i: (-round(cos[i], 6), i))[:k]
    assert [h.id for h in hits] == expected
    assert np.allclose([h.score for h in hits], [cos[i] for i in expected], atol=1e-5)
    index.drop()


def check_upsert_is_exact(backend: Backend) -> None:
    """After an upsert the next query sees the new text with the same statistics as a fresh load."""
    index = backend.create_index("cu", IndexSpec(WEIGHTS))
    index.load(CORPUS)
    index.wait_ready(len(CORPUS), 30)
    changed = doc("b", "redis cache", "kv store postgres")
    index.upsert(changed)
    upserted = index.lexical(["postgres"], Filters(), 10)
    fresh = backend.create_index("cu2", IndexSpec(WEIGHTS))
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
