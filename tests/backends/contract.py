"""The backend contract as reusable checks: every backend module's tests call these.

Every engine scores with the one BM25 of `harness/backends/base.py`, so every score is checked
against `reference_lexical`, that contract written out in Python from its definition: equal
scores to 1e-6 on every engine means equal scores across engines, not only equal rankings.
`BackendContract` runs them all on one registered backend, as its descriptor says. The one
parameter an engine may hold differently is BM25's b (`engine_b`): the Query Engine of RediSearch
2.x hard-codes 0.5; its scores are checked against the same formula with that b.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends import registry
from harness.backends.base import (
    Absent,
    AnyOf,
    AttributeType,
    Backend,
    Clause,
    Eq,
    Filters,
    Hit,
    IndexDoc,
    IndexSpec,
    Present,
    ranked,
)
from harness.backends.descriptor import ContractNotes
from harness.backends.embedded import EmbeddedBackend
from harness.errors import BackendUnavailable

WEIGHTS = {"name": 1.0, "aliases": 2.0}
ATTRIBUTES = {
    "owner": AttributeType.KEYWORD,
    "tags": AttributeType.KEYWORDS,
    "kind": AttributeType.KEYWORD,
    "live": AttributeType.BOOLEAN,
}
"""Attributes with no meaning to the engines: one of each type, any of them may be absent."""


def spec(dimensions: int | None = None) -> IndexSpec:
    return IndexSpec(WEIGHTS, dimensions, ATTRIBUTES)


K1, B = 1.2, 0.75
SCORE_TOLERANCE = 1e-6


def engine_b(backend: Backend) -> float:
    """The b an engine's BM25 uses: the contract's 0.75, unless the engine declares its own."""
    return float(getattr(backend, "bm25_b", B))


def reference_engine(backend: Backend) -> EmbeddedBackend:
    """The embedded engine with `backend`'s b: what tests that run a kind on every backend hold it
    to, every other number being the contract's."""
    return EmbeddedBackend(bm25_b=engine_b(backend))


def bm25(tf: int, df: int, n_docs: int, length: int, avg_length: float, b: float = B) -> float:
    """Lucene's idf and statistics with the (k1+1) factor (Redis BM25STD's form), for every engine."""
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf * tf * (K1 + 1) / (tf + K1 * (1 - b + b * length / avg_length))


def reference_lexical(
    docs: list[IndexDoc], weights: dict[str, float], terms: list[str], filters: Filters, limit: int, b: float = B
) -> list[Hit]:
    """The lexical contract computed naively: statistics over every document having the field
    (filters ignored), one clause per (field, distinct term) found, clauses summing to the score."""
    words = {d.id: {f: d.fields.get(f, "").split() for f in weights} for d in docs}
    hits = []
    for d in docs:
        if not filters.admits(d):
            continue
        clauses = []
        for field, weight in weights.items():
            having = [w[field] for w in words.values() if w[field]]
            for term in dict.fromkeys(terms):
                tf = words[d.id][field].count(term)
                if tf:
                    df = sum(term in w for w in having)
                    avg = sum(map(len, having)) / len(having)
                    clauses.append(
                        Clause(field, term, weight * bm25(tf, df, len(having), len(words[d.id][field]), avg, b))
                    )
        if clauses:
            hits.append(Hit(d.id, math.fsum(c.score for c in clauses), tuple(clauses)))
    return ranked(hits, limit)


def assert_same_hits(got: list[Hit], want: list[Hit], tolerance: float = SCORE_TOLERANCE) -> None:
    """Same documents, same order, each score and each (field, term) clause within `tolerance`."""
    assert [h.id for h in got] == [h.id for h in want], (
        [(h.id, h.score) for h in got],
        [(h.id, h.score) for h in want],
    )
    for g, w in zip(got, want, strict=True):
        assert abs(g.score - w.score) <= tolerance, (g.id, g.score, w.score)
        got_clauses = {(c.field, c.term): c.score for c in g.clauses}
        want_clauses = {(c.field, c.term): c.score for c in w.clauses}
        assert got_clauses.keys() == want_clauses.keys(), (g.id, got_clauses, want_clauses)
        for key, value in want_clauses.items():
            assert abs(got_clauses[key] - value) <= tolerance, (g.id, key, got_clauses[key], value)


def namespace(name: str) -> str:
    return f"{name}{uuid.uuid4().hex[:10]}"


def doc(
    doc_id: str,
    name: str,
    aliases: str,
    owner: str | None = "u",
    tags=("domain:a",),
    live: bool | None = True,
    kind: str | None = "entity",
    vector=None,
) -> IndexDoc:
    """A contract document; None (or no tags) leaves that attribute absent."""
    attributes = {"owner": owner, "tags": frozenset(tags), "kind": kind, "live": live}
    return IndexDoc(
        doc_id,
        {"name": name, "aliases": aliases},
        {k: v for k, v in attributes.items() if v is not None},
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


def check_bm25_formula(backend: Backend, tolerance: float = SCORE_TOLERANCE) -> None:
    """Per-field BM25 with field weights; (field, term) clauses add up to the score."""
    index = backend.create_index(namespace("cf"), spec())
    index.load(CORPUS)
    index.wait_ready(len(CORPUS), 30)
    (hit,) = index.lexical(["postgres", "pg"], Filters(), 10)
    expected = {}
    for field, term, length in (("name", "postgres", 2), ("aliases", "postgres", 3), ("aliases", "pg", 3)):
        n_docs, df, avg = field_stats(CORPUS, field, term)
        expected[(field, term)] = WEIGHTS[field] * bm25(1, df, n_docs, length, avg, engine_b(backend))
    got = {(c.field, c.term): c.score for c in hit.clauses}
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert abs(got[key] - value) <= tolerance, (key, got[key], value)
    assert math.isclose(hit.score, sum(c.score for c in hit.clauses), rel_tol=1e-9)
    index.drop()


def check_statistics_ignore_filters(backend: Backend, tolerance: float = SCORE_TOLERANCE) -> None:
    """Filtered-out documents (another owner, not live, no owner) still count in N, df and average
    length; documents with an empty field do not count for that field."""
    docs = [
        *CORPUS,
        doc("x", "kafka", "kafka streams", owner="other"),
        doc("y", "kafka", "kafka", live=False),
        doc("w", "kafka", "kafka", owner=None),
        doc("z", "no aliases at all", ""),
    ]
    index = backend.create_index(namespace("cs"), spec())
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.lexical(["kafka"], Filters(Eq("owner", "u"), Eq("live", True)), 10)
    assert [h.id for h in hits] == ["c"]
    n_docs, df, avg = field_stats(docs, "aliases", "kafka")
    assert (n_docs, df) == (8, 4)
    expected = 2.0 * bm25(1, df, n_docs, 1, avg, engine_b(backend))
    assert abs(hits[0].score - expected) <= tolerance
    index.drop()


def check_filters_and_order(
    backend: Backend, docs: list[IndexDoc], filters: Filters, terms: list[str], tolerance: float = SCORE_TOLERANCE
) -> None:
    """Exactly the admitted documents matching a term, ordered by score then id, each with the
    reference score and clauses: the same numbers on every engine."""
    index = backend.create_index(namespace("cp"), spec())
    index.load(docs)
    index.wait_ready(len(docs), 30)
    hits = index.lexical(terms, filters, 100)
    expected = {
        d.id for d in docs if filters.admits(d) and any(t in " ".join(d.fields.values()).split() for t in terms)
    }
    assert {h.id for h in hits} == expected
    keys = [(-round(h.score, 9), h.id) for h in hits]
    assert keys == sorted(keys)
    assert_same_hits(hits, reference_lexical(docs, WEIGHTS, terms, filters, 100, engine_b(backend)), tolerance)
    index.drop()


ACCENTED = [
    doc("accent", "café", "crème brûlée"),
    doc("plain", "cafe", "creme brulee"),
    doc("other", "zebra", "straße"),
    doc("mixed", "café cafe", "strasse"),
]


def check_diacritics_are_kept(backend: Backend) -> None:
    """One analyzer everywhere (`harness.text`): `café` and `cafe` are two terms on every engine,
    in the postings and in the document frequencies, so scores and rankings agree."""
    index = backend.create_index(namespace("ca"), spec())
    index.load(ACCENTED)
    index.wait_ready(len(ACCENTED), 30)
    for terms in (["café"], ["cafe"], ["café", "zebra"], ["brûlée"], ["straße"], ["strasse"]):
        hits = index.lexical(terms, Filters(), 10)
        assert_same_hits(hits, reference_lexical(ACCENTED, WEIGHTS, terms, Filters(), 10, engine_b(backend)))
    assert {h.id for h in index.lexical(["café"], Filters(), 10)} == {"accent", "mixed"}
    assert {h.id for h in index.lexical(["brulee"], Filters(), 10)} == {"plain"}
    index.drop()


def check_vector_top_k(backend: Backend, docs: list[IndexDoc], filters: Filters, query: np.ndarray, k: int) -> None:
    """Top k by cosine among admitted documents, score = cosine (exact engines, or ANN with enough candidates)."""
    index = backend.create_index(namespace("cv"), spec(len(query)))
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
    index = backend.create_index(namespace("cu"), spec())
    index.load(CORPUS)
    index.wait_ready(len(CORPUS), 30)
    changed = doc("b", "redis cache", "kv store postgres")
    index.upsert([changed])
    upserted = index.lexical(["postgres"], Filters(), 10)
    fresh = backend.create_index(namespace("cu2"), spec())
    fresh.load([changed if d.id == "b" else d for d in CORPUS])
    fresh.wait_ready(len(CORPUS), 30)
    reference = fresh.lexical(["postgres"], Filters(), 10)
    assert {h.id for h in upserted} == {"a", "b"}
    for got, want in zip(upserted, reference, strict=True):
        assert got.id == want.id
        assert math.isclose(got.score, want.score, rel_tol=1e-6)
    index.upsert([doc("b", "redis cache", "kv store")])
    assert {h.id for h in index.lexical(["postgres"], Filters(), 10)} == {"a"}
    index.drop()
    fresh.drop()


def check_upserts_keep_statistics(backend: Backend, batched: bool) -> None:
    """Statistics maintained by deltas: emptying, changing, re-writing and adding documents, one
    upsert each or all in one batch, must leave every clause as the reference scores the final
    documents (and a fresh load does)."""
    final = {d.id: d for d in CORPUS}
    index = backend.create_index(namespace("ud"), spec())
    index.load(CORPUS)
    changes = [
        doc("a", "postgres database", ""),
        doc("b", "redis cache", "kv store postgres postgres"),
        doc("c", "message queue", "kafka"),
        doc("f", "store", "object store s3", owner="other", live=False, tags=()),
    ]
    for batch in [changes] if batched else [[d] for d in changes]:
        index.upsert(batch)
    final.update((d.id, d) for d in changes)
    vocabulary = sorted({w for d in final.values() for text in d.fields.values() for w in text.split()})
    for filters in (Filters(), Filters(Eq("owner", "u")), Filters(Absent("tags"))):
        want = reference_lexical(list(final.values()), WEIGHTS, vocabulary, filters, 100, engine_b(backend))
        assert_same_hits(index.lexical(vocabulary, filters, 100), want)
    index.drop()


def check_attributes_read_back(backend: Backend, docs: list[IndexDoc]) -> None:
    """What was written is what `attributes` reads: every type, absent ones left out, unknown ids
    left out; after an upsert that changes and drops attributes, the new ones only."""
    index = backend.create_index(namespace("ca"), spec())
    try:
        index.load(docs)
        index.wait_ready(len(docs), 30)
        ids = [d.id for d in docs]
        assert index.attributes([*ids, "no-such-id"]) == {d.id: dict(d.attributes) for d in docs}
        first = docs[0]
        changed = doc(first.id, "changed", "", owner="u9", tags=("x:1", "y:2"), live=None, kind=None)
        index.upsert([changed])
        assert index.attributes([first.id]) == {first.id: {"owner": "u9", "tags": frozenset({"x:1", "y:2"})}}
        assert index.attributes([]) == {}
    finally:
        index.drop()


def check_undeclared_attributes_are_refused(backend: Backend) -> None:
    """Attributes are declared up front: a document or a filter naming another one, or a value of
    the wrong type, is an error, never an empty or unfiltered answer."""
    index = backend.create_index(namespace("cr"), spec())
    try:
        with pytest.raises(ValueError, match="not declared"):
            index.load([IndexDoc("a", {"name": "x"}, {"colour": "red"})])
        with pytest.raises(ValueError, match="keyword"):
            index.load([IndexDoc("a", {"name": "x"}, {"owner": True})])
        index.load(CORPUS)
        index.wait_ready(len(CORPUS), 30)
        for filters in (Filters(Eq("colour", "red")), Filters(Eq("live", "yes")), Filters(AnyOf("live", {"x"}))):
            with pytest.raises(ValueError, match=r"colour|live"):
                index.lexical(["postgres"], filters, 10)
    finally:
        index.drop()


# Hypothesis strategies shared by every backend's property tests: each attribute present or
# absent, filters of every kind on every attribute (any-of on the multi-valued one too).
docs_strategy = st.lists(
    st.builds(
        doc,
        doc_id=st.uuids().map(lambda u: u.hex[:8]),
        name=st.lists(st.sampled_from("alpha beta gamma delta café".split()), min_size=1, max_size=3).map(" ".join),
        aliases=st.lists(st.sampled_from("alpha beta epsilon cafe".split()), max_size=3).map(" ".join),
        owner=st.sampled_from([None, "u1", "u2"]),
        tags=st.lists(st.sampled_from(["domain:a", "domain:b", "user:universal"]), max_size=2, unique=True).map(tuple),
        live=st.sampled_from([None, True, False]),
        kind=st.sampled_from([None, "entity", "open_question"]),
    ),
    min_size=1,
    max_size=15,
    unique_by=lambda d: d.id,
)
_KEYWORDS = {
    "owner": ["u1", "u2"],
    "tags": ["domain:a", "domain:b", "user:universal"],
    "kind": ["entity", "open_question"],
}
condition_strategy = st.one_of(
    st.sampled_from(list(ATTRIBUTES)).map(Present),
    st.sampled_from(list(ATTRIBUTES)).map(Absent),
    st.booleans().map(lambda value: Eq("live", value)),
    *(st.sampled_from(values).map(lambda v, a=a: Eq(a, v)) for a, values in _KEYWORDS.items()),
    *(
        st.frozensets(st.sampled_from(values), max_size=2).map(lambda vs, a=a: AnyOf(a, vs))
        for a, values in _KEYWORDS.items()
    ),
)
filters_strategy = st.lists(condition_strategy, max_size=3).map(lambda conditions: Filters(*conditions))
terms_strategy = st.lists(st.sampled_from("alpha beta gamma epsilon zeta café cafe".split()), min_size=1, max_size=3)


def contract_engine(name: str, server_url: Callable[[str], str]) -> Backend:
    """The engine the contract checks for registered backend `name` (see ContractNotes.engine);
    `server_url(name)` gives a server backend's URL."""
    found = registry.descriptor(name)
    if found.server is None:
        return registry.connect(name)
    url = server_url(name)
    return found.contract.engine(url) if found.contract.engine is not None else registry.connect(name, url)


class BackendContract:
    """The contract as tests: a test class inheriting this, with fixtures `engine` (the Backend)
    and `notes` (its descriptor's ContractNotes), runs every check above on that engine."""

    def test_bm25_formula(self, engine: Backend, notes: ContractNotes) -> None:
        check_bm25_formula(engine, notes.tolerance)

    def test_statistics_ignore_filters(self, engine: Backend, notes: ContractNotes) -> None:
        check_statistics_ignore_filters(engine, notes.tolerance)

    def test_diacritics_are_kept(self, engine: Backend) -> None:
        check_diacritics_are_kept(engine)

    def test_upsert_is_exact(self, engine: Backend) -> None:
        check_upsert_is_exact(engine)

    @pytest.mark.parametrize("batched", [False, True], ids=["one-by-one", "batched"])
    def test_upserts_keep_statistics(self, engine: Backend, batched: bool) -> None:
        check_upserts_keep_statistics(engine, batched)

    def test_attributes_read_back(self, engine: Backend, notes: ContractNotes) -> None:
        @settings(max_examples=max(1, notes.examples // 10), deadline=None)
        @given(docs_strategy)
        def check(docs: list[IndexDoc]) -> None:
            check_attributes_read_back(engine, docs)

        check()

    def test_undeclared_attributes_are_refused(self, engine: Backend) -> None:
        check_undeclared_attributes_are_refused(engine)

    def test_filters_and_order(self, engine: Backend, notes: ContractNotes) -> None:
        @settings(max_examples=notes.examples, deadline=None)
        @given(docs_strategy, filters_strategy, terms_strategy)
        def check(docs: list[IndexDoc], filters: Filters, terms: list[str]) -> None:
            check_filters_and_order(engine, docs, filters, terms, notes.tolerance)

        check()

    def test_vector_top_k(self, engine: Backend, notes: ContractNotes) -> None:
        if engine.info().vector_engine is None:
            index = engine.create_index(namespace("nv"), spec(3))
            index.load(CORPUS)
            with pytest.raises(BackendUnavailable, match="not supported"):
                index.vector(np.ones(3), Filters(), 3)
            index.drop()
            return

        @settings(max_examples=notes.examples, deadline=None)
        @given(docs_strategy, filters_strategy, st.integers(min_value=1, max_value=5), st.integers(0, 2**32 - 1))
        def check(docs: list[IndexDoc], filters: Filters, k: int, seed: int) -> None:
            rng = np.random.default_rng(seed)
            docs = [IndexDoc(d.id, d.fields, d.attributes, rng.normal(size=4)) for d in docs]
            check_vector_top_k(engine, docs, filters, rng.normal(size=4), k)

        check()
