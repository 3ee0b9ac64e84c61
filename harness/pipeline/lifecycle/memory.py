"""A scenario's memories on one engine namespace: how they start (`seed`), and what retrieval,
access and consolidation do to them and to their associations, at a simulated minute the caller
gives. The order of those operations (a scenario's phases) is the evaluation's, not this module's."""

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
from harness.pipeline.lifecycle.similarity import Pair, duplicate_pairs
from harness.pipeline.lifecycle.store import LifecycleStore, MemoryText
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode


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


class ScenarioMemory:
    """The memories in their store, the association graph and the near-duplicate pairs that
    consolidation may merge. Under Hebbian rules each search's spreading adds to the activation
    counts the next search reads."""

    def __init__(
        self,
        store: LifecycleStore,
        graph: Graph,
        pairs: Sequence[Pair],
        mode: Mode,
        settings: LifecycleSettings,
        rules: LifecycleRules,
    ):
        self._store = store
        self._graph = graph
        self._pairs = pairs
        self._mode = mode
        self._settings = settings
        self._rules = rules

    @classmethod
    def open(
        cls,
        backend: Backend,
        namespace: str,
        seeded: Seeded,
        embedder: TextEmbedder,
        mode: Mode,
        settings: LifecycleSettings,
        rules: LifecycleRules = HARNESS_RULES,
    ) -> ScenarioMemory:
        """`embedder` gives the vectors duplicate detection compares (in every mode); they are
        indexed in the engine only when the mode searches them."""
        vectors = dict(zip((t.id for t in seeded.texts), embedder.embed([t.text for t in seeded.texts]), strict=True))
        dimensions = embedder.dimensions if mode.needs_vectors else None
        store = LifecycleStore.open(backend, namespace, seeded.texts, vectors, dimensions, rules.concepts_searched)
        try:
            store.load(seeded.records)
            pairs = duplicate_pairs(
                {t.id: t.text for t in seeded.texts}, vectors, settings.merge_cosine, settings.merge_jaccard
            )
        except BaseException:
            with suppress(Exception):  # the namespace may have gone with the server: the first error tells
                store.drop()
            raise
        return cls(store, Graph(seeded.edges, 0.0), pairs, mode, settings, rules)

    def search(self, query: str, vector: np.ndarray | None, now: float, top: int) -> tuple[Ranked, ...]:
        """The top `top` memories for the query at minute `now` (`vector`: the query's, in vector modes)."""
        found = retrieve(self._store, self._graph, query, vector, self._mode, now, top, self._settings, self._rules)
        if found.traversed:
            self._graph = self._graph.activated(found.traversed)
        return tuple(found.ranked)

    def access(self, ids: Sequence[str], now: float) -> None:
        """These memories were used at minute `now`: their access count and last use move."""
        records = self._store.records()
        self._store.write(records[i].accessed(now) for i in ids)

    def consolidate(self, now: float) -> CycleReport:
        """One consolidation cycle at minute `now`: decay, merges, state changes, association decay."""
        records = self._store.records()
        done = consolidate(records, self._graph, self._pairs, now, self._settings)
        self._store.write(r for i, r in done.records.items() if r != records[i])
        self._graph = done.graph
        return done.report

    def records(self) -> dict[str, MemoryRecord]:
        """Every memory's state as the engine holds it now."""
        return self._store.records()

    @property
    def associations(self) -> tuple[Edge, ...]:
        return self._graph.edges

    def drop(self) -> None:
        self._store.drop()
