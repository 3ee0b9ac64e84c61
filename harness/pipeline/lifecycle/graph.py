"""Typed weighted associations between memories, and what a consolidation cycle does to them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from harness.models.scenario import MemoryState
from harness.pipeline.lifecycle.records import MemoryRecord
from harness.pipeline.lifecycle.settings import LifecycleSettings


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    strength: float
    relation: str
    activation_count: int = 1
    """Times retrieval spread along it (Mnemonic's Hebbian count; the harness's rules never read it)."""


@dataclass(frozen=True, slots=True)
class Graph:
    edges: tuple[Edge, ...]
    consolidated_at: float
    """Simulated minute of the last decay: strengths decay by the time elapsed since."""

    def neighbours(self, memory_id: str) -> list[tuple[str, float]]:
        """(other end, strength) of every edge touching the memory; activation spreads both ways."""
        out = [(e.target, e.strength) for e in self.edges if e.source == memory_id]
        return out + [(e.source, e.strength) for e in self.edges if e.target == memory_id]

    def touching(self, memory_id: str) -> list[tuple[Edge, str]]:
        """(edge, other end) of every edge touching the memory, in the graph's order."""
        return [
            (e, e.target if e.source == memory_id else e.source)
            for e in self.edges
            if memory_id in (e.source, e.target)
        ]

    def activated(self, traversed: Sequence[Edge]) -> Graph:
        """The graph with one more activation on each traversed edge (once per traversal)."""
        counts = Counter((e.source, e.target, e.relation) for e in traversed)
        return replace(
            self,
            edges=tuple(
                replace(e, activation_count=e.activation_count + n)
                if (n := counts[(e.source, e.target, e.relation)])
                else e
                for e in self.edges
            ),
        )

    def degree(self, memory_id: str) -> float:
        """Summed strength of the edges touching the memory."""
        return sum(strength for _, strength in self.neighbours(memory_id))


def consolidate_graph(
    graph: Graph, records: Mapping[str, MemoryRecord], now: float, settings: LifecycleSettings
) -> Graph:
    """Move edges of merged memories to the kept one, weaken those touching a fading memory by
    the elapsed time, and prune self-loops, weak edges and edges touching archived memories;
    repeated edges keep the strongest."""
    elapsed = max(0.0, now - graph.consolidated_at) / settings.cycle_minutes
    factor = settings.association_decay**elapsed
    kept: dict[tuple[str, str, str], Edge] = {}
    for edge in graph.edges:
        source = _kept(edge.source, records)
        target = _kept(edge.target, records)
        states = {records[source].state, records[target].state}
        strength = edge.strength * factor if MemoryState.FADING in states else edge.strength
        moved = replace(edge, source=source, target=target, strength=strength)
        if source == target or MemoryState.ARCHIVED in states or moved.strength < settings.prune_below:
            continue
        key = (source, target, edge.relation)
        if key not in kept or moved.strength > kept[key].strength:
            kept[key] = moved
    return Graph(tuple(kept[k] for k in sorted(kept)), max(now, graph.consolidated_at))


def _kept(memory_id: str, records: Mapping[str, MemoryRecord]) -> str:
    """The memory a merged one lives on in (itself when not merged)."""
    seen = {memory_id}
    while (into := records[memory_id].merged_into) is not None and into not in seen:
        seen.add(into)
        memory_id = into
    return memory_id
