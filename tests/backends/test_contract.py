"""Every backend against the protocol contract (tests/backends/contract.py).

Engines differ only in their documented BM25 (idf and the (k1+1) factor); each is written here
from its documentation, and everything else is checked identically.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends.base import Backend, Filters, IndexDoc, IndexSpec
from harness.backends.embedded import EmbeddedBackend
from harness.backends.registry import connect
from harness.errors import BackendUnavailable
from tests.backends import contract
from tests.backends.contract import docs_strategy, filters_strategy, terms_strategy

K1, B = 1.2, 0.75


def _tf(tf: int, length: int, avg_length: float) -> float:
    return tf / (tf + K1 * (1 - B + B * length / avg_length))


def fts5_bm25(tf: int, df: int, n_docs: int, length: int, avg_length: float) -> float:
    """SQLite FTS5: idf = ln((N-n+0.5)/(n+0.5)) floored at 1e-6, with the (k1+1) factor."""
    idf = math.log((n_docs - df + 0.5) / (df + 0.5))
    return (idf if idf > 0 else 1e-6) * (K1 + 1) * _tf(tf, length, avg_length)


def bm25_standard(tf: int, df: int, n_docs: int, length: int, avg_length: float) -> float:
    """postgres sql-bm25 and the redis/valkey core engine (Redis BM25STD's form)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) * (K1 + 1) * _tf(tf, length, avg_length)


def lucene_bm25(tf: int, df: int, n_docs: int, length: int, avg_length: float) -> float:
    """Atlas Search (Lucene since LUCENE-8563): the same idf, no (k1+1) factor."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) * _tf(tf, length, avg_length)


FORMULAS = {
    "embedded": fts5_bm25,
    "postgres": bm25_standard,
    "redis": bm25_standard,
    "valkey": bm25_standard,
    "atlas": lucene_bm25,
}
EXAMPLES = {"embedded": 100, "postgres": 25, "redis": 25, "valkey": 25, "atlas": 5}


@pytest.fixture(scope="module", params=[pytest.param(n, marks=getattr(pytest.mark, n)) for n in FORMULAS])
def engine(request: pytest.FixtureRequest, server_url) -> Iterator[Backend]:
    name = request.param
    if name == "embedded":
        backend: Backend = EmbeddedBackend()
    elif name in ("redis", "valkey"):
        from harness.backends.redis_core import RedisCoreBackend

        backend = RedisCoreBackend.connect(server_url(name), name)  # the core engine, even where FT.* exists
    else:
        backend = connect(name, server_url(name))
    yield backend
    backend.close()


def test_bm25_formula(engine: Backend) -> None:
    contract.check_bm25_formula(engine, FORMULAS[engine.name])


def test_statistics_ignore_filters(engine: Backend) -> None:
    contract.check_statistics_ignore_filters(engine, FORMULAS[engine.name])


def test_upsert_is_exact(engine: Backend) -> None:
    contract.check_upsert_is_exact(engine)


def test_filters_and_order(engine: Backend) -> None:
    @settings(max_examples=EXAMPLES[engine.name], deadline=None)
    @given(docs_strategy, filters_strategy, terms_strategy)
    def check(docs: list[IndexDoc], filters: Filters, terms: list[str]) -> None:
        contract.check_filters_and_order(engine, docs, filters, terms)

    check()


def test_vector_top_k(engine: Backend) -> None:
    if engine.info().vector_engine is None:
        index = engine.create_index(contract.namespace("nv"), IndexSpec(contract.WEIGHTS, dimensions=3))
        index.load(contract.CORPUS)
        with pytest.raises(BackendUnavailable, match="not supported"):
            index.vector(np.ones(3), Filters(), 3)
        index.drop()
        return

    @settings(max_examples=EXAMPLES[engine.name], deadline=None)
    @given(docs_strategy, filters_strategy, st.integers(min_value=1, max_value=5), st.integers(0, 2**32 - 1))
    def check(docs: list[IndexDoc], filters: Filters, k: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        docs = [IndexDoc(d.id, d.user, d.scopes, d.kind, d.live, d.fields, rng.normal(size=4)) for d in docs]
        contract.check_vector_top_k(engine, docs, filters, rng.normal(size=4), k)

    check()
