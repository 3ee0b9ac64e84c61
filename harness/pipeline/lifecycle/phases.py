"""One scenario on one engine in one mode, phase by phase on a simulated clock (nothing sleeps):
ingest -> baseline queries -> access simulation -> N consolidation cycles -> post queries."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass

import numpy as np

from harness.backends.base import Backend
from harness.models.scenario import MemoryState, Scenario
from harness.pipeline.lifecycle.consolidation import CycleReport, consolidate
from harness.pipeline.lifecycle.encoding import encode
from harness.pipeline.lifecycle.graph import Edge, Graph
from harness.pipeline.lifecycle.records import MemoryRecord
from harness.pipeline.lifecycle.retrieval import Ranked, retrieve
from harness.pipeline.lifecycle.rules import HARNESS_RULES, LifecycleRules
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.lifecycle.similarity import duplicate_pairs
from harness.pipeline.lifecycle.store import LifecycleStore, MemoryText
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode


@dataclass(frozen=True, slots=True)
class QueryRun:
    query: str
    returned: tuple[Ranked, ...]


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    baseline: tuple[QueryRun, ...]
    post: tuple[QueryRun, ...]
    final: dict[str, MemoryRecord] | None
    """Every memory's state at the end, as the engine holds it (None: a system under test, which
    does not show its memories' states through the protocol)."""
    concepts: dict[str, tuple[str, ...]]
    cycles: tuple[CycleReport, ...]
    associations: tuple[Edge, ...]
    """The associations left after the last cycle."""
    episodes: int | None = None
    """Raw-event scenarios: episodes the encoder formed."""


@dataclass(frozen=True, slots=True)
class Seeded:
    texts: tuple[MemoryText, ...]
    records: tuple[MemoryRecord, ...]
    edges: tuple[Edge, ...]
    episodes: int | None


def seed(scenario: Scenario, settings: LifecycleSettings) -> Seeded:
    """The memories a scenario starts with: its own, or those encoded from its raw events (whose
    clock starts at the last capture, so earlier events are older)."""
    if scenario.raw:
        encoded = encode(scenario.raw_events, settings)
        start = max(encoded.minutes.values(), default=0.0)
        records = tuple(
            MemoryRecord(t.id, MemoryState.ACTIVE, encoded.salience[t.id], encoded.minutes[t.id] - start, 0.0)
            for t in encoded.texts
        )
        return Seeded(encoded.texts, records, encoded.edges, encoded.episodes)
    texts = tuple(MemoryText(m.id, m.summary, m.content, m.concepts) for m in scenario.memories)
    records = tuple(MemoryRecord(m.id, m.state, m.salience, -m.age_minutes, 0.0) for m in scenario.memories)
    edges = tuple(
        Edge(a.source_id, a.target_id, a.strength, a.relation_type, a.activation_count) for a in scenario.associations
    )
    return Seeded(texts, records, edges, None)


def ask_all(
    store: LifecycleStore,
    graph: Graph,
    queries: Sequence[str],
    query_vectors: Sequence[np.ndarray | None],
    mode: Mode,
    now: float,
    top: int,
    settings: LifecycleSettings,
    rules: LifecycleRules = HARNESS_RULES,
) -> tuple[list[QueryRun], Graph]:
    """Each query in order, and the graph after them: under Hebbian rules a query's spreading
    adds to the activation counts the next query reads."""
    runs = []
    for query, vector in zip(queries, query_vectors, strict=True):
        found = retrieve(store, graph, query, vector, mode, now, top, settings, rules)
        graph = graph.activated(found.traversed) if found.traversed else graph
        runs.append(QueryRun(query, tuple(found.ranked)))
    return runs, graph


def run_scenario(
    scenario: Scenario,
    backend: Backend,
    namespace: str,
    embedder: TextEmbedder,
    mode: Mode,
    limit: int,
    settings: LifecycleSettings,
    rules: LifecycleRules = HARNESS_RULES,
) -> ScenarioRun:
    """`embedder` gives the vectors duplicate detection compares (in every mode); they are
    indexed in the engine only when the mode searches them. `rules`: whose retrieval (rules.py);
    under Hebbian rules each query's spreading updates the graph the next query reads."""
    seeded = seed(scenario, settings)
    vectors = dict(zip((t.id for t in seeded.texts), embedder.embed([t.text for t in seeded.texts]), strict=True))
    queries = [q.query for q in scenario.queries]
    query_vectors: list[np.ndarray | None] = (
        list(embedder.embed(queries)) if mode.needs_vectors else [None] * len(queries)
    )
    dimensions = embedder.dimensions if mode.needs_vectors else None
    store = LifecycleStore.open(backend, namespace, seeded.texts, vectors, dimensions, rules.concepts_searched)
    try:
        store.load(seeded.records)
        graph = Graph(seeded.edges, 0.0)
        pairs = duplicate_pairs(
            {t.id: t.text for t in seeded.texts}, vectors, settings.merge_cosine, settings.merge_jaccard
        )
        now = 0.0

        def ask(top: int) -> list[QueryRun]:
            nonlocal graph
            runs, graph = ask_all(store, graph, queries, query_vectors, mode, now, top, settings, rules)
            return runs

        baseline = ask(limit)
        for asked in ask(settings.access_top_k):
            records = store.records()
            store.write(records[r.id].accessed(now) for r in asked.returned)
        cycles = []
        for _ in range(settings.cycles):
            now += settings.cycle_minutes
            records = store.records()
            done = consolidate(records, graph, pairs, now, settings)
            store.write(r for i, r in done.records.items() if r != records[i])
            graph = done.graph
            cycles.append(done.report)
        post = ask(limit)
        outcome = ScenarioRun(
            baseline=tuple(baseline),
            post=tuple(post),
            final=store.records(),
            concepts={t.id: t.concepts for t in seeded.texts},
            cycles=tuple(cycles),
            associations=graph.edges,
            episodes=seeded.episodes,
        )
    except BaseException:
        with suppress(Exception):  # the namespace may have gone with the server: the first error tells
            store.drop()
        raise
    store.drop()
    return outcome
