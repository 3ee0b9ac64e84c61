"""Scenario retrieval: lexical and vector entry points, a merged entry score, spread activation
over associations, then salience and recency weighting. Archived and merged memories never
surface: the engine filters the entry points on state, and spreading skips them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from harness.metrics.evaluate import rank_key
from harness.pipeline.lifecycle.graph import Graph
from harness.pipeline.lifecycle.records import MemoryRecord
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.lifecycle.store import LifecycleStore
from harness.pipeline.settings import Mode


@dataclass(frozen=True, slots=True)
class Ranked:
    id: str
    score: float
    activation: float
    via: str
    """`entry`, or `spread:<id>` for a memory reached over an association from that one."""


def entry_scores(
    store: LifecycleStore, query: str, query_vector: np.ndarray | None, mode: Mode, settings: LifecycleSettings
) -> dict[str, float]:
    """Per memory: BM25 over the best BM25 (bm25), the cosine above the floor (vector), or their
    weighted sum (hybrid), rounded so engines that differ in float noise agree; only entries
    within `relative_floor` of the best one enter."""
    digits = settings.score_decimals
    lexical: dict[str, float] = {}
    vector: dict[str, float] = {}
    if mode in (Mode.BM25, Mode.HYBRID):
        hits = store.lexical(query, settings.entry_limit)
        best = max((h.score for h in hits), default=0.0)
        lexical = {h.id: round(h.score / best, digits) for h in hits if best > 0}
    if mode in (Mode.VECTOR, Mode.HYBRID):
        if query_vector is None:
            raise ValueError("vector and hybrid retrieval need the query's vector")
        cosines = store.vector(query_vector, settings.entry_limit)
        vector = {i: c for i, cosine in cosines.items() if (c := round(cosine, digits)) >= settings.vector_floor}
    if mode is Mode.BM25:
        scores = lexical
    elif mode is Mode.VECTOR:
        scores = vector
    else:
        scores = {
            i: round(
                settings.lexical_weight * lexical.get(i, 0.0) + settings.vector_weight * vector.get(i, 0.0), digits
            )
            for i in lexical.keys() | vector.keys()
        }
    best = max(scores.values(), default=0.0)
    return {i: score for i, score in scores.items() if score >= settings.relative_floor * best}


def spread(
    entries: Mapping[str, float], graph: Graph, records: Mapping[str, MemoryRecord], settings: LifecycleSettings
) -> dict[str, tuple[float, str]]:
    """Activation per memory and where it came from: entries keep theirs; each hop passes on
    activation x strength x hop_decay to live neighbours (the best path wins), up to max_hops."""
    activation = {i: (a, "entry") for i, a in entries.items() if records[i].live}
    frontier = sorted(activation)
    for _ in range(settings.max_hops):
        reached: dict[str, tuple[float, str]] = {}
        for node in frontier:
            for neighbour, strength in graph.neighbours(node):
                if not records[neighbour].live:
                    continue
                passed = activation[node][0] * strength * settings.hop_decay
                if passed < settings.min_activation or passed <= activation.get(neighbour, (0.0, ""))[0]:
                    continue
                if passed > reached.get(neighbour, (0.0, ""))[0]:
                    reached[neighbour] = (passed, f"spread:{node}")
        activation.update(reached)
        frontier = sorted(reached)
    return activation


def rank(
    activation: Mapping[str, tuple[float, str]],
    records: Mapping[str, MemoryRecord],
    now: float,
    limit: int,
    settings: LifecycleSettings,
) -> list[Ranked]:
    """Activation weighted by salience and by how recently the memory was used; top `limit`."""
    ranked = []
    for memory_id, (value, via) in activation.items():
        record = records[memory_id]
        recency = 0.5 ** (max(0.0, now - record.last_used()) / settings.recency_half_life_minutes)
        weight = (1 - settings.salience_weight + settings.salience_weight * record.salience) * (
            1 - settings.recency_weight + settings.recency_weight * recency
        )
        ranked.append(Ranked(memory_id, value * weight, value, via))
    return sorted(ranked, key=lambda r: rank_key(r.score, r.id))[:limit]


def retrieve(
    store: LifecycleStore,
    graph: Graph,
    query: str,
    query_vector: np.ndarray | None,
    mode: Mode,
    now: float,
    limit: int,
    settings: LifecycleSettings,
) -> tuple[list[Ranked], dict[str, MemoryRecord]]:
    """The top `limit` memories for the query, and the state they were ranked by."""
    records = store.records()
    entries = entry_scores(store, query, query_vector, mode, settings)
    return rank(spread(entries, graph, records, settings), records, now, limit, settings), records
