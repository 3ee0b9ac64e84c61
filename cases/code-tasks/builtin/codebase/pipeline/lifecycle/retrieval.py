"""Scenario retrieval: lexical and vector entry points, a merged entry score, spread activation
over associations, then a final weighting, each step by the run's `LifecycleRules` (rules.py):
the harness's own or Mnemonic's. Archived and merged memories never surface: the engine filters
the entry points on state, and spreading skips them."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness.backends.base import Hit
from harness.metrics.evaluate import rank_key
from harness.pipeline.lifecycle.fts5 import prefix_bm25
from harness.pipeline.lifecycle.graph import Edge, Graph
from harness.pipeline.lifecycle.records import MemoryRecord
from harness.pipeline.lifecycle.rules import HARNESS_RULES, Fusion, LifecycleRules, Ranking, Spread
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.lifecycle.store import LifecycleStore
from harness.pipeline.settings import Mode
from harness.text import content_terms

_MINUTES_PER_DAY = 24 * 60.0


@dataclass(frozen=True, slots=True)
class Ranked:
    id: str
    score: float
    activation: float
    via: str
    """`entry`, or `spread:<id>` for a memory reached over an association from that one."""


@dataclass(frozen=True, slots=True)
class Activation:
    value: float
    via: str
    count: int = 0
    """Activation count of the association it arrived by (0 for an entry point)."""


@dataclass(frozen=True, slots=True)
class Retrieved:
    ranked: list[Ranked]
    records: dict[str, MemoryRecord]
    """The state the memories were ranked by."""
    traversed: tuple[Edge, ...] = ()
    """Associations spread along source to target (Hebbian rules count them)."""


def query_terms(store: LifecycleStore, query: str, rules: LifecycleRules) -> list[str]:
    """The analysed query words; under prefix rules each word of two or more characters stands for
    every indexed word it begins (itself included when indexed)."""
    words = content_terms(query)
    if not rules.prefix_terms:
        return words
    vocabulary = store.vocabulary
    expanded = []
    for word in (w for w in words if len(w) >= 2):
        start = bisect_left(vocabulary, word)
        end = start
        while end < len(vocabulary) and vocabulary[end].startswith(word):
            end += 1
        expanded += vocabulary[start:end]
    return expanded


@dataclass(frozen=True, slots=True)
class Channels:
    lexical: list[Hit]
    """Lexical hits, best first."""
    cosines: dict[str, float]
    """Vector hits and their cosines (rounded)."""


def channels(
    store: LifecycleStore,
    query: str,
    query_vector: np.ndarray | None,
    mode: Mode,
    settings: LifecycleSettings,
    rules: LifecycleRules = HARNESS_RULES,
) -> Channels:
    """What each entry channel the mode searches finds: the engine's BM25 hits (or, under
    `row_bm25`, the engine's matches ranked by FTS5's row bm25) and its nearest memories."""
    limit = rules.constants.entry_limit if rules.fusion is Fusion.MNEMONIC else settings.entry_limit
    hits: list[Hit] = []
    cosines: dict[str, float] = {}
    if mode in (Mode.BM25, Mode.HYBRID):
        terms = query_terms(store, query, rules)
        if rules.row_bm25:
            matching = [h.id for h in store.lexical(terms, len(store.ids))]
            scores = prefix_bm25(store.rows, [w for w in content_terms(query) if len(w) >= 2])
            hits = sorted((Hit(i, scores.get(i, 0.0)) for i in matching), key=lambda h: rank_key(h.score, h.id))
            hits = hits[:limit]
        else:
            hits = store.lexical(terms, limit)
    if mode in (Mode.VECTOR, Mode.HYBRID):
        if query_vector is None:
            raise ValueError("vector and hybrid retrieval need the query's vector")
        cosines = {i: round(c, settings.score_decimals) for i, c in store.vector(query_vector, limit).items()}
    return Channels(hits, cosines)


def entry_scores(
    found: Channels,
    mode: Mode,
    settings: LifecycleSettings,
    rules: LifecycleRules = HARNESS_RULES,
    records: Mapping[str, MemoryRecord] | None = None,
) -> dict[str, float]:
    """Per entry memory its entry score. Harness: BM25 over the best BM25 (bm25), the cosine
    above the floor (vector), or their weighted sum (hybrid), rounded so engines that differ in
    float noise agree; only entries within `relative_floor` of the best one enter. Mnemonic:
    `Fusion.MNEMONIC` (rules.py), from the salience in `records`."""
    digits = settings.score_decimals
    if rules.fusion is Fusion.MNEMONIC:
        if records is None:
            raise ValueError("Mnemonic's entry scores read each memory's salience")
        return _mnemonic_entries([h.id for h in found.lexical], found.cosines, records, rules)
    best = max((h.score for h in found.lexical), default=0.0)
    lexical = {h.id: round(h.score / best, digits) for h in found.lexical if best > 0}
    vector = {i: c for i, c in found.cosines.items() if c >= settings.vector_floor}
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


def _mnemonic_entries(
    lexical: Sequence[str], cosines: Mapping[str, float], records: Mapping[str, MemoryRecord], rules: LifecycleRules
) -> dict[str, float]:
    """Mnemonic's mergeEntryPoints: the lexical hit at rank r scores rank_weight / r +
    salience_weight x salience; a vector hit its cosine; a memory both found the blend plus a bonus."""
    c = rules.constants
    fts = {
        memory_id: c.lexical_rank_weight / rank
        + c.lexical_salience_weight * (s if (s := records[memory_id].salience) > 0 else c.default_salience)
        for rank, memory_id in enumerate(lexical, 1)
    }
    entries = {}
    for memory_id in fts.keys() | cosines.keys():
        if memory_id in fts and memory_id in cosines:
            entries[memory_id] = (
                c.merge_alpha * cosines[memory_id] + (1 - c.merge_alpha) * fts[memory_id] + c.dual_hit_bonus
            )
        else:
            entries[memory_id] = cosines[memory_id] if memory_id in cosines else fts[memory_id]
    return entries


def spread(
    entries: Mapping[str, float],
    graph: Graph,
    records: Mapping[str, MemoryRecord],
    settings: LifecycleSettings,
    rules: LifecycleRules = HARNESS_RULES,
) -> tuple[dict[str, Activation], tuple[Edge, ...]]:
    """Activation per memory and where it came from, and the associations spread along (source
    to target). Entries keep theirs; each hop passes activation on to live neighbours (the best
    path wins). Harness: x strength x hop_decay, up to max_hops, at least min_activation.
    Mnemonic: x strength x decay^hop x relation weight, above the threshold, replacing a lower
    activation (an entry's too)."""
    mnemonic = rules.spread is Spread.MNEMONIC
    c = rules.constants
    activation = {i: Activation(a, "entry") for i, a in entries.items() if records[i].live}
    frontier = sorted(activation)
    traversed: list[Edge] = []
    for hop in range(1, (c.max_hops if mnemonic else settings.max_hops) + 1):
        reached: dict[str, Activation] = {}
        for node in frontier:
            current = activation[node].value
            for edge, neighbour in graph.touching(node):
                if not records[neighbour].live:
                    continue
                if mnemonic:
                    passed = current * edge.strength * c.decay_factor**hop * c.relation_weights.get(edge.relation, 1.0)
                    if passed <= c.activation_threshold:
                        continue
                    if edge.source == node:
                        traversed.append(edge)
                else:
                    passed = current * edge.strength * settings.hop_decay
                    if passed < settings.min_activation:
                        continue
                    if edge.source == node:
                        traversed.append(edge)
                best = reached.get(neighbour, activation.get(neighbour))
                if best is None or passed > best.value:
                    reached[neighbour] = Activation(passed, f"spread:{node}", edge.activation_count)
        activation.update(reached)
        frontier = sorted(reached)
    return activation, tuple(traversed)


def rank(
    activation: Mapping[str, Activation],
    records: Mapping[str, MemoryRecord],
    now: float,
    limit: int,
    settings: LifecycleSettings,
    rules: LifecycleRules = HARNESS_RULES,
) -> list[Ranked]:
    """Activation weighted by salience and by how recently the memory was used (harness), or by
    Mnemonic's recency bonus, plus under Hebbian rules its activity bonus; top `limit`."""
    c = rules.constants
    ranked = []
    for memory_id, state in activation.items():
        record = records[memory_id]
        idle = max(0.0, now - record.last_used())
        if rules.ranking is Ranking.MNEMONIC:
            weight = 1 + c.recency_weight * math.exp(-idle / _MINUTES_PER_DAY / c.recency_days)
        else:
            recency = 0.5 ** (idle / settings.recency_half_life_minutes)
            weight = (1 - settings.salience_weight + settings.salience_weight * record.salience) * (
                1 - settings.recency_weight + settings.recency_weight * recency
            )
        if rules.hebbian:
            weight += min(c.activity_cap, c.activity_per_log * math.log1p(state.count))
        ranked.append(Ranked(memory_id, state.value * weight, state.value, state.via))
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
    rules: LifecycleRules = HARNESS_RULES,
) -> Retrieved:
    """The top `limit` memories for the query, the state they were ranked by, and what spread
    along which associations."""
    records = store.records()
    found = channels(store, query, query_vector, mode, settings, rules)
    if rules.baseline_modes and mode is not Mode.HYBRID:
        scored = [(h.id, h.score) for h in found.lexical] or sorted(
            found.cosines.items(), key=lambda c: rank_key(c[1], c[0])
        )
        return Retrieved([Ranked(i, score, score, "entry") for i, score in scored[:limit]], records)
    entries = entry_scores(found, mode, settings, rules, records)
    activation, traversed = spread(entries, graph, records, settings, rules)
    ranked = rank(activation, records, now, limit, settings, rules)
    return Retrieved(ranked, records, traversed if rules.hebbian else ())
