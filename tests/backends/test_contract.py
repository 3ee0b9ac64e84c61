"""Every backend against the protocol contract (tests/backends/contract.py): the same BM25
scores (to 1e-6) and clauses on every engine, checked against one reference, and the same
filters, order, upserts and vectors.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends.base import Backend, Filters, IndexDoc
from harness.backends.embedded import EmbeddedBackend
from harness.backends.registry import BACKENDS, connect
from harness.errors import BackendUnavailable
from tests.backends import contract
from tests.backends.contract import docs_strategy, filters_strategy, terms_strategy

TOLERANCE = {"atlas": 1e-5}
"""Atlas computes in float32 (k1 = 1.2000000476837158); the exact engines agree to 1e-6."""
EXAMPLES = {"embedded": 100, "postgres": 25, "redis": 25, "valkey": 25, "atlas": 5}


@pytest.fixture(scope="module", params=[pytest.param(n, marks=getattr(pytest.mark, n)) for n in BACKENDS])
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


def _tolerance(engine: Backend) -> float:
    return TOLERANCE.get(engine.name, contract.SCORE_TOLERANCE)


def test_bm25_formula(engine: Backend) -> None:
    contract.check_bm25_formula(engine, _tolerance(engine))


def test_statistics_ignore_filters(engine: Backend) -> None:
    contract.check_statistics_ignore_filters(engine, _tolerance(engine))


def test_diacritics_are_kept(engine: Backend) -> None:
    contract.check_diacritics_are_kept(engine)


def test_upsert_is_exact(engine: Backend) -> None:
    contract.check_upsert_is_exact(engine)


def test_upserts_keep_statistics(engine: Backend) -> None:
    contract.check_upserts_keep_statistics(engine)


def test_undeclared_attributes_are_refused(engine: Backend) -> None:
    contract.check_undeclared_attributes_are_refused(engine)


def test_filters_and_order(engine: Backend) -> None:
    @settings(max_examples=EXAMPLES[engine.name], deadline=None)
    @given(docs_strategy, filters_strategy, terms_strategy)
    def check(docs: list[IndexDoc], filters: Filters, terms: list[str]) -> None:
        contract.check_filters_and_order(engine, docs, filters, terms, _tolerance(engine))

    check()


def test_vector_top_k(engine: Backend) -> None:
    if engine.info().vector_engine is None:
        index = engine.create_index(contract.namespace("nv"), contract.spec(3))
        index.load(contract.CORPUS)
        with pytest.raises(BackendUnavailable, match="not supported"):
            index.vector(np.ones(3), Filters(), 3)
        index.drop()
        return

    @settings(max_examples=EXAMPLES[engine.name], deadline=None)
    @given(docs_strategy, filters_strategy, st.integers(min_value=1, max_value=5), st.integers(0, 2**32 - 1))
    def check(docs: list[IndexDoc], filters: Filters, k: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        docs = [IndexDoc(d.id, d.fields, d.attributes, rng.normal(size=4)) for d in docs]
        contract.check_vector_top_k(engine, docs, filters, rng.normal(size=4), k)

    check()
