"""The embedded backend against the protocol contract (tests/backends/contract.py)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends.base import IndexDoc
from harness.backends.embedded import EmbeddedBackend
from tests.backends import contract
from tests.backends.contract import docs_strategy, filters_strategy, terms_strategy


def fts5_bm25(tf: int, df: int, n_docs: int, length: int, avg_length: float) -> float:
    """SQLite's documented FTS5 bm25: k1 = 1.2, b = 0.75, idf = ln((N-n+0.5)/(n+0.5)) floored at 1e-6."""
    idf = math.log((n_docs - df + 0.5) / (df + 0.5))
    idf = idf if idf > 0 else 1e-6
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg_length))


def test_bm25_formula() -> None:
    contract.check_bm25_formula(EmbeddedBackend(), fts5_bm25)


def test_statistics_ignore_filters() -> None:
    contract.check_statistics_ignore_filters(EmbeddedBackend(), fts5_bm25)


def test_upsert_is_exact() -> None:
    contract.check_upsert_is_exact(EmbeddedBackend())


@settings(max_examples=100, deadline=None)
@given(docs_strategy, filters_strategy, terms_strategy)
def test_filters_and_order(docs, filters, terms) -> None:
    contract.check_filters_and_order(EmbeddedBackend(), docs, filters, terms)


@settings(max_examples=100, deadline=None)
@given(docs_strategy, filters_strategy, st.integers(min_value=1, max_value=5), st.integers(0, 2**32 - 1))
def test_vector_top_k(docs, filters, k, seed) -> None:
    rng = np.random.default_rng(seed)
    docs = [IndexDoc(d.id, d.user, d.scopes, d.kind, d.live, d.fields, rng.normal(size=4)) for d in docs]
    contract.check_vector_top_k(EmbeddedBackend(), docs, filters, rng.normal(size=4), k)


def test_drop_removes_every_table() -> None:
    backend = EmbeddedBackend()
    index = backend.create_index("t", contract.IndexSpec(contract.WEIGHTS))
    index.load(contract.CORPUS)
    index.drop()
    assert backend._db.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 't_%'").fetchone() == (0,)
