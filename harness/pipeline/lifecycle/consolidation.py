"""One deterministic consolidation cycle, without an LLM: decay, merge, state transitions, pruning.

A pure function of the records, the associations, the duplicate candidates and the clock, so it
is the same on every backend and idempotent at a fixed clock (decay is by the time elapsed since
the last consolidation; a merge needs two live memories; states follow salience). It never
deletes a memory: archived and merged memories stay, with their state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from harness.models.scenario import MemoryState
from harness.pipeline.lifecycle.graph import Graph, consolidate_graph
from harness.pipeline.lifecycle.records import MemoryRecord
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.lifecycle.similarity import Pair

_DAY = 24 * 60.0


@dataclass(frozen=True, slots=True)
class CycleReport:
    at: float
    decayed: int
    fading: int
    archived: int
    merged: tuple[tuple[str, str], ...]
    """(merged memory, the memory it was merged into)."""
    associations: int


@dataclass(frozen=True, slots=True)
class Consolidated:
    records: dict[str, MemoryRecord]
    graph: Graph
    report: CycleReport


def decayed(record: MemoryRecord, graph: Graph, now: float, settings: LifecycleSettings) -> MemoryRecord:
    """Salience x cycle_decay^exponent, the exponent growing with elapsed cycles and age and
    shrinking with accesses and associations; a recently accessed memory is held at the floor."""
    if not record.live:
        return record
    elapsed = max(0.0, now - record.consolidated_at) / settings.cycle_minutes
    age_days = max(0.0, now - record.created_at) / _DAY
    support = (1 + settings.access_protection * record.access_count) * (
        1 + settings.association_protection * graph.degree(record.id)
    )
    salience = record.salience * settings.cycle_decay ** (
        elapsed * (1 + settings.age_acceleration * age_days) / support
    )
    if record.last_access is not None and now - record.last_access <= settings.access_window_minutes:
        salience = max(salience, settings.access_floor)
    return replace(record, salience=salience, consolidated_at=max(now, record.consolidated_at))


def keeper_order(record: MemoryRecord) -> tuple[float, float, float, str]:
    """Which of two duplicates is kept: the more accessed, then the older, then the more salient."""
    return (-record.access_count, record.created_at, -record.salience, record.id)


def merge(records: dict[str, MemoryRecord], pairs: Sequence[Pair]) -> list[tuple[str, str]]:
    """Merge each candidate pair whose two memories are both still live, most similar first; the
    kept memory takes the higher salience, the summed accesses and the later access, and whatever
    pointed at the merged one points at it."""
    merged = []
    for pair in pairs:
        a, b = records[pair.first], records[pair.second]
        if not (a.live and b.live):
            continue
        keep, gone = sorted((a, b), key=keeper_order)
        accesses = [t for t in (keep.last_access, gone.last_access) if t is not None]
        records[keep.id] = replace(
            keep,
            salience=max(keep.salience, gone.salience),
            access_count=keep.access_count + gone.access_count,
            last_access=max(accesses) if accesses else None,
        )
        records[gone.id] = replace(gone, state=MemoryState.MERGED, merged_into=keep.id)
        for other in records.values():
            if other.merged_into == gone.id:
                records[other.id] = replace(other, merged_into=keep.id)
        merged.append((gone.id, keep.id))
    return merged


def transition(record: MemoryRecord, settings: LifecycleSettings) -> MemoryRecord:
    """Live memories take the state their salience says; archived and merged are terminal."""
    if not record.live:
        return record
    if record.salience < settings.archive_below:
        state = MemoryState.ARCHIVED
    elif record.salience < settings.fading_below:
        state = MemoryState.FADING
    else:
        state = MemoryState.ACTIVE
    return replace(record, state=state)


def consolidate(
    records: Mapping[str, MemoryRecord],
    graph: Graph,
    pairs: Sequence[Pair],
    now: float,
    settings: LifecycleSettings,
) -> Consolidated:
    before = dict(records)
    current = {i: decayed(r, graph, now, settings) for i, r in records.items()}
    merged = merge(current, pairs)
    current = {i: transition(r, settings) for i, r in current.items()}
    new_graph = consolidate_graph(graph, current, now, settings)

    def became(state: MemoryState) -> int:
        return sum(1 for i, r in current.items() if r.state is state and before[i].state is not state)

    report = CycleReport(
        at=now,
        decayed=sum(1 for i, r in current.items() if r.salience < before[i].salience),
        fading=became(MemoryState.FADING),
        archived=became(MemoryState.ARCHIVED),
        merged=tuple(merged),
        associations=len(new_graph.edges),
    )
    return Consolidated(current, new_graph, report)
