"""Every constant of the lifecycle pipeline, named and documented in one place; reports print them.

Times are minutes of the simulated clock. A consolidation cycle is `cycle_minutes` long, so a
memory's salience falls by `cycle_decay` per cycle it is not used (the upstream benchmark's x0.92),
faster when old, slower the more it was accessed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def _setting(default: Any, doc: str) -> Any:
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True)
class LifecycleSettings:
    # -- phases --
    cycles: int = _setting(5, "consolidation cycles between the baseline and the post queries")
    cycle_minutes: float = _setting(60.0, "simulated minutes each consolidation cycle advances the clock")
    access_top_k: int = _setting(3, "results per query whose access count and last access the access phase bumps")

    # -- salience decay --
    cycle_decay: float = _setting(0.92, "salience factor per cycle length elapsed since the last consolidation")
    age_acceleration: float = _setting(
        0.25,
        "extra decay exponent per day of age: decay^(elapsed x (1 + this x age_days) / (access term x association term))",
    )
    access_protection: float = _setting(0.5, "access term = 1 + this x access count: accessed memories decay slower")
    association_protection: float = _setting(
        0.5, "association term = 1 + this x summed strength of its associations: connected memories decay slower"
    )
    access_window_minutes: float = _setting(
        90.0, "a memory accessed this recently is held at least at access_floor salience (never archived)"
    )
    access_floor: float = _setting(0.4, "salience a recently accessed memory is raised to, if below")

    # -- states --
    fading_below: float = _setting(0.35, "salience under which an active memory becomes fading")
    archive_below: float = _setting(0.15, "salience under which a memory becomes archived (terminal)")

    # -- associations --
    association_decay: float = _setting(
        0.95, "strength factor per cycle length elapsed, for associations touching a fading memory"
    )
    prune_below: float = _setting(
        0.1, "associations weaker than this are pruned, as are those touching archived memories"
    )

    # -- near-duplicate merge --
    merge_cosine: float = _setting(0.85, "embedding cosine at or above which two live memories may be duplicates")
    merge_jaccard: float = _setting(0.3, "and lexical Jaccard (content words of summary + content) at or above which")

    # -- retrieval --
    entry_limit: int = _setting(20, "hits each entry point (lexical, vector) contributes before spreading")
    lexical_weight: float = _setting(0.5, "hybrid entry score = this x BM25 / best BM25 + vector_weight x cosine")
    vector_weight: float = _setting(0.5, "weight of the cosine in the hybrid entry score")
    vector_floor: float = _setting(0.2, "cosines below this do not make a vector entry point")
    max_hops: int = _setting(3, "spread activation hops over associations (0: no spreading)")
    hop_decay: float = _setting(0.7, "activation factor per hop, times the association's strength")
    min_activation: float = _setting(0.3, "spread activation below this is dropped")
    salience_weight: float = _setting(0.5, "final score = activation x (1 - this + this x salience) x recency term")
    recency_weight: float = _setting(0.2, "recency term = 1 - this + this x 0.5^(minutes since last use / half-life)")
    recency_half_life_minutes: float = _setting(240.0, "half-life of the recency term")
    relative_floor: float = _setting(
        0.5,
        "entry points scoring under this share of the best entry's score do not enter (precision over filling slots)",
    )
    score_decimals: int = _setting(
        6, "entry scores are rounded to this many decimals, so float32 engines rank as float64 ones"
    )

    # -- raw-event encoding --
    default_salience: float = _setting(0.5, "initial salience of a raw event that gives none")
    encode_threshold: float = _setting(0.3, "raw events with a heuristic score under this are never encoded")
    episode_gap_minutes: float = _setting(10.0, "encoded events closer than this (same source) form one episode")
    episode_strength: float = _setting(0.5, "strength of the temporal association between neighbours in an episode")

    def __post_init__(self) -> None:
        if self.cycles < 0 or self.max_hops < 0 or self.entry_limit < 1 or self.access_top_k < 0:
            raise ValueError("cycles, max_hops and access_top_k must be >= 0, entry_limit >= 1")
        if not 0.0 <= self.archive_below <= self.fading_below <= 1.0:
            raise ValueError("need 0 <= archive_below <= fading_below <= 1")

    def describe(self) -> list[tuple[str, Any, str]]:
        """(name, value, what it does) of every setting, in declaration order."""
        return [(f.name, getattr(self, f.name), f.metadata["doc"]) for f in fields(self)]

    def as_dict(self) -> dict[str, Any]:
        return {name: value for name, value, _ in self.describe()}
