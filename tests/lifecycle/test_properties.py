"""Consolidation and retrieval properties over generated memories, associations and clocks:
nothing is ever deleted, signal accessed every cycle is never archived, a cycle repeated at the
same clock changes nothing, only pairs above both similarity thresholds merge, and retrieval
never returns an archived or merged memory."""

from __future__ import annotations

import uuid
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends.embedded import EmbeddedBackend
from harness.models.scenario import MemoryState
from harness.pipeline.lifecycle.consolidation import consolidate
from harness.pipeline.lifecycle.graph import Edge, Graph
from harness.pipeline.lifecycle.records import MemoryRecord
from harness.pipeline.lifecycle.retrieval import retrieve
from harness.pipeline.lifecycle.rules import HARNESS_RULES, MNEMONIC_RULES
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.lifecycle.similarity import duplicate_pairs
from harness.pipeline.lifecycle.store import LifecycleStore, MemoryText
from harness.pipeline.settings import Mode
from tests.lifecycle.conftest import WordHashEmbedder

SETTINGS = LifecycleSettings()
WORDS = "cache redis timeout deploy rollback tomato vault token staging invoice pdf tax".split()
STATES = [MemoryState.ACTIVE, MemoryState.FADING, MemoryState.ARCHIVED]


@st.composite
def worlds(draw, merged: bool = False):
    """(records, graph, texts): memories in any starting state, random associations, and texts
    drawn from a small vocabulary, some of them copies of others (near-duplicates)."""
    count = draw(st.integers(2, 10))
    ids = [f"m{i}" for i in range(count)]
    texts: dict[str, str] = {}
    for memory_id in ids:
        if texts and draw(st.booleans()):
            original = texts[draw(st.sampled_from(sorted(texts)))]
            texts[memory_id] = original + draw(st.sampled_from(["", " again", " " + WORDS[0]]))
        else:
            texts[memory_id] = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)))
    records = {}
    for memory_id in ids:
        accessed = draw(st.booleans())
        records[memory_id] = MemoryRecord(
            id=memory_id,
            state=draw(st.sampled_from(STATES)),
            salience=draw(st.floats(0.0, 1.0)),
            created_at=-draw(st.floats(0.0, 2000.0)),
            consolidated_at=0.0,
            access_count=draw(st.integers(0, 4)) if accessed else 0,
            last_access=-draw(st.floats(0.0, 300.0)) if accessed else None,
        )
    if merged and count > 2:
        keeper = next((i for i in ids if records[i].live), None)
        for memory_id in draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)):
            if keeper is not None and memory_id != keeper:
                records[memory_id] = replace(records[memory_id], state=MemoryState.MERGED, merged_into=keeper)
    edges = draw(
        st.lists(
            st.builds(Edge, st.sampled_from(ids), st.sampled_from(ids), st.floats(0.05, 1.0), st.sampled_from(["caused_by", "similar"])),
            max_size=12,
        )
    )  # fmt: skip
    return records, Graph(tuple(edges), 0.0), texts


def _pairs(texts: dict[str, str]):
    vectors = dict(zip(texts, WordHashEmbedder().embed(list(texts.values())), strict=True))
    return duplicate_pairs(texts, vectors, SETTINGS.merge_cosine, SETTINGS.merge_jaccard), vectors


@settings(max_examples=150, deadline=None)
@given(worlds(), st.integers(1, 8))
def test_consolidation_never_deletes_a_memory(world, cycles: int) -> None:
    records, graph, texts = world
    pairs, _ = _pairs(texts)
    now = 0.0
    for _ in range(cycles):
        now += SETTINGS.cycle_minutes
        done = consolidate(records, graph, pairs, now, SETTINGS)
        assert done.records.keys() == records.keys()
        records, graph = done.records, done.graph


@settings(max_examples=150, deadline=None)
@given(worlds(), st.integers(1, 8), st.data())
def test_signal_accessed_every_cycle_is_never_archived(world, cycles: int, data) -> None:
    records, graph, texts = world
    pairs, _ = _pairs(texts)
    live = sorted(i for i, r in records.items() if r.live)
    accessed = data.draw(st.lists(st.sampled_from(live), unique=True) if live else st.just([]))
    now = 0.0
    for _ in range(cycles):
        now += data.draw(st.floats(1.0, 5 * SETTINGS.cycle_minutes))
        records = {i: r.accessed(now) if i in accessed else r for i, r in records.items()}
        records, graph = (done := consolidate(records, graph, pairs, now, SETTINGS)).records, done.graph
        assert all(records[i].state is not MemoryState.ARCHIVED for i in accessed)


@settings(max_examples=150, deadline=None)
@given(worlds(merged=True), st.floats(0.0, 1000.0))
def test_consolidation_is_idempotent_at_a_fixed_clock(world, now: float) -> None:
    records, graph, texts = world
    pairs, _ = _pairs(texts)
    once = consolidate(records, graph, pairs, now, SETTINGS)
    twice = consolidate(once.records, once.graph, pairs, now, SETTINGS)
    assert twice.records == once.records
    assert twice.graph == once.graph
    assert twice.report.merged == ()


def _vectors(ids: list[str], seed: int, copies: list[int]) -> dict[str, np.ndarray]:
    """Vectors independent of the texts: each a random unit vector, or a slightly moved copy of
    an earlier one, so embedding and wording disagree as often as they agree."""
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for position, memory_id in enumerate(ids):
        base = out[ids[copies[position] % position]] if position and copies[position] >= 0 else rng.normal(size=16)
        vector = base + rng.normal(scale=0.15, size=16) * (position > 0 and copies[position] >= 0)
        out[memory_id] = vector / np.linalg.norm(vector)
    return out


@settings(max_examples=200, deadline=None)
@given(worlds(), st.integers(0, 2**32 - 1), st.lists(st.integers(-3, 9), min_size=10, max_size=10))
def test_only_pairs_above_both_thresholds_merge(world, seed: int, copies: list[int]) -> None:
    records, graph, texts = world
    vectors = _vectors(sorted(texts), seed, copies)
    pairs = duplicate_pairs(texts, vectors, SETTINGS.merge_cosine, SETTINGS.merge_jaccard)
    done = consolidate(records, graph, pairs, SETTINGS.cycle_minutes, SETTINGS)
    for gone, kept in done.report.merged:
        assert round(float(np.dot(vectors[gone], vectors[kept])), 6) >= SETTINGS.merge_cosine
        words_a, words_b = set(texts[gone].split()), set(texts[kept].split())
        assert len(words_a & words_b) / len(words_a | words_b) >= SETTINGS.merge_jaccard
    newly = {i for i, r in done.records.items() if r.state is MemoryState.MERGED and records[i].state is not r.state}
    assert newly == {gone for gone, _ in done.report.merged}


def test_a_near_duplicate_merges_into_the_older_memory_and_a_distinct_one_does_not() -> None:
    texts = {"old": "redis cache timeout deploy", "new": "redis cache timeout deploy again", "other": "tomato tax"}
    records = {
        i: MemoryRecord(i, MemoryState.ACTIVE, 0.8, created_at=-age, consolidated_at=0.0)
        for i, age in (("old", 500.0), ("new", 10.0), ("other", 100.0))
    }
    pairs, _ = _pairs(texts)
    done = consolidate(records, Graph((), 0.0), pairs, SETTINGS.cycle_minutes, SETTINGS)
    assert done.report.merged == (("new", "old"),)
    assert done.records["new"].merged_into == "old"
    assert done.records["other"].state is MemoryState.ACTIVE


@settings(max_examples=60, deadline=None)
@given(
    worlds(merged=True),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    st.sampled_from(list(Mode)),
    st.sampled_from([HARNESS_RULES, MNEMONIC_RULES]),
)
def test_retrieval_never_returns_archived_or_merged_memories(world, query_words, mode: Mode, rules) -> None:
    """Under either ruleset (Mnemonic's store never archives in its benchmark, ours does)."""
    records, graph, texts = world
    embedder = WordHashEmbedder()
    vectors = dict(zip(texts, embedder.embed(list(texts.values())), strict=True))
    backend = EmbeddedBackend()
    memory_texts = [MemoryText(i, t, "", ()) for i, t in texts.items()]
    namespace = f"p{uuid.uuid4().hex[:8]}"
    store = LifecycleStore.open(backend, namespace, memory_texts, vectors, embedder.dimensions, rules.concepts_searched)
    try:
        store.load(list(records.values()))
        query = " ".join(query_words)
        (query_vector,) = embedder.embed([query])
        found = retrieve(store, graph, query, query_vector, mode, 0.0, 5, SETTINGS, rules)
        assert found.records == records
        assert all(records[r.id].live for r in found.ranked)
    finally:
        store.drop()
        backend.close()
