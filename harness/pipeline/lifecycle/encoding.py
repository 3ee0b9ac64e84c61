"""Raw capture events into memories, deterministically (no LLM): a heuristic-score gate, concept
tags, and temporal associations inside episodes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from harness.models.scenario import RawEvent
from harness.pipeline.lifecycle.graph import Edge
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.lifecycle.store import MemoryText
from harness.text import content_terms

SUMMARY_WORDS = 12
"""Words of an event's content its memory's summary keeps."""


@dataclass(frozen=True, slots=True)
class Encoded:
    texts: tuple[MemoryText, ...]
    salience: dict[str, float]
    minutes: dict[str, float]
    edges: tuple[Edge, ...]
    episodes: int


def event_minute(event: RawEvent, position: int) -> float:
    """Capture time: the event's own minute, else its 0-based position."""
    return event.minute if event.minute is not None else float(position)


def concepts(event: RawEvent) -> tuple[str, ...]:
    """The event's concept tags, else the distinct content words of its text."""
    return event.concepts or tuple(dict.fromkeys(content_terms(event.content)))


def encode(events: Sequence[RawEvent], settings: LifecycleSettings) -> Encoded:
    """Events at or above the heuristic gate become memories (an event without a score passes:
    nothing says it is noise); consecutive ones less than `episode_gap_minutes` apart form an
    episode, each neighbour pair joined by a temporal association."""
    kept = [
        (event_minute(e, i), i, e)
        for i, e in enumerate(events)
        if e.heuristic_score is None or e.heuristic_score >= settings.encode_threshold
    ]
    kept.sort(key=lambda item: (item[0], item[1]))
    texts = tuple(
        MemoryText(e.id, " ".join(e.content.split()[:SUMMARY_WORDS]), e.content, concepts(e)) for _, _, e in kept
    )
    edges, episodes, run = [], 0, 1
    for (before, _, a), (after, _, b) in pairwise(kept):
        if after - before < settings.episode_gap_minutes:
            edges.append(Edge(a.id, b.id, settings.episode_strength, "temporal"))
            run += 1
            continue
        episodes += run > 1
        run = 1
    episodes += run > 1
    return Encoded(
        texts=texts,
        salience={
            e.id: e.initial_salience if e.initial_salience is not None else settings.default_salience
            for _, _, e in kept
        },
        minutes={e.id: minute for minute, _, e in kept},
        edges=tuple(edges),
        episodes=episodes,
    )
