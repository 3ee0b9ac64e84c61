"""Lifecycle scenarios through a system under test: the scenario's memories ingested with the
harness's times, the same phases as the reference path (baseline queries, access to what each
query's top returned, consolidation cycles on a simulated clock, post queries), each driven
through the protocol (`advance`, `record_access`, `consolidate`), and the rankings judged by the
same judge (`lifecycle_results.judge`), so the scores are comparable.

The simulated clock's minute 0 is `START`; a memory `age_minutes` old is added with that much
earlier a time. A system's memory states are not observable through the protocol, so the
lifecycle shares of them (noise suppression, signal retention, dedup) are not measured for it.
Raw-event scenarios are encoded by the harness as on the reference path, and the encoded
memories are what the system is given.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from harness.evaluation import teardown
from harness.models.scenario import Scenario
from harness.pipeline.lifecycle.phases import QueryRun, ScenarioRun, seed
from harness.pipeline.lifecycle.retrieval import Ranked
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.settings import Mode
from harness.systems.bound import BoundSystem
from harness.systems.protocol import Capability, MemorySystem, Query, Record, SystemInfo

START = datetime(2026, 1, 1, tzinfo=UTC)
"""The simulated clock's minute 0 (any fixed instant: only differences matter)."""
USER = "lifecycle"
"""The one user a scenario's memories are stored and searched under."""
VIA = "system"
"""What a system's result is reached by, in the report (the reference path says `entry` or `spread:<id>`)."""


UNOBSERVED = (
    "a system under test retrieves on its own (the rules' retrieval is the reference path's; their judging applies), "
    "and its memories' states are not observable through the protocol: noise suppression, signal retention and "
    "dedup are not measured for it"
)
"""The line a system's lifecycle report carries under its scorecard."""


def needed(settings: LifecycleSettings) -> tuple[Capability, ...]:
    """What the phases ask of a system: times on records and queries and a clock always; access
    when the access phase bumps any result; consolidation when any cycle runs (`--cycles 0`: none).
    Every scenario runs the same phases, so this is the kind's need, not a scenario's."""
    needs = [Capability.TIMESTAMPS, Capability.CLOCK]
    if settings.access_top_k > 0:
        needs.append(Capability.ACCESS)
    if settings.cycles > 0:
        needs.append(Capability.CONSOLIDATION)
    return tuple(needs)


def not_applicable(info: SystemInfo, settings: LifecycleSettings) -> str | None:
    """Why lifecycle scenarios cannot run on this system, naming each capability it lacks."""
    missing = info.missing(*needed(settings))
    if not missing:
        return None
    lacks = ", ".join(c.value for c in missing)
    return f"the lifecycle kind needs {lacks}, which system {info.name!r} does not declare"


def at(minute: float) -> datetime:
    return START + timedelta(minutes=minute)


def run_on_system(
    scenario: Scenario, system: BoundSystem, mode: Mode, limit: int, settings: LifecycleSettings
) -> ScenarioRun:
    """One scenario in one mode on a namespace of its own, phase by phase as `phases.run_scenario`."""
    seeded = seed(scenario, settings)
    opened = system.open(f"h{uuid.uuid4().hex[:12]}")
    try:
        opened.advance(at(0.0))
        texts = {t.id: t for t in seeded.texts}
        opened.add(
            [
                Record(
                    r.id,
                    texts[r.id].text,
                    USER,
                    time=at(r.created_at),
                    attributes={
                        "state": r.state.value,
                        "salience": r.salience,
                        "concepts": ", ".join(texts[r.id].concepts),
                    },
                )
                for r in seeded.records
            ]
        )
        queries = [q.query for q in scenario.queries]
        known = set(texts)
        now = 0.0

        def ask(top: int) -> list[QueryRun]:
            return [QueryRun(q, _search(opened, q, top, mode, now, known)) for q in queries]

        baseline = ask(limit)
        if settings.access_top_k > 0:
            for asked in ask(settings.access_top_k):
                opened.record_access([r.id for r in asked.returned])
        for _ in range(settings.cycles):
            now += settings.cycle_minutes
            opened.advance(at(now))
            opened.consolidate()
        post = ask(limit)
    finally:
        teardown.close(opened)
    return ScenarioRun(
        baseline=tuple(baseline),
        post=tuple(post),
        final=None,
        concepts={t.id: t.concepts for t in seeded.texts},
        cycles=(),
        associations=(),
        episodes=seeded.episodes,
    )


def _search(opened: MemorySystem, text: str, top: int, mode: Mode, now: float, known: set[str]) -> tuple[Ranked, ...]:
    """The system's results, best first; a result without a score ranks by 1 / rank (as a
    dataset's turns do); an id never added is an error of the scenario, never dropped."""
    found = opened.search(Query(text, USER, limit=top, time=at(now)), mode)
    if unknown := [f.id for f in found if f.id not in known]:
        raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
    return tuple(
        Ranked(f.id, f.score if f.score is not None else 1.0 / rank, 0.0, VIA) for rank, f in enumerate(found, 1)
    )
