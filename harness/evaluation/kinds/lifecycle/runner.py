"""A scenario's phases, the one sequence every answering side runs through the port, on a
simulated clock (nothing sleeps): ingest -> baseline queries -> access simulation -> N
consolidation cycles -> post queries."""

from __future__ import annotations

from dataclasses import dataclass

from harness.evaluation import teardown
from harness.evaluation.kinds.lifecycle.port import LifecyclePort, Observed
from harness.models.scenario import Scenario
from harness.pipeline.lifecycle.memory import seed
from harness.pipeline.lifecycle.retrieval import Ranked
from harness.pipeline.lifecycle.settings import LifecycleSettings


@dataclass(frozen=True, slots=True)
class QueryRun:
    query: str
    returned: tuple[Ranked, ...]


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    baseline: tuple[QueryRun, ...]
    post: tuple[QueryRun, ...]
    observed: Observed | None
    """Every memory's state at the end and what consolidation did (None: the answering side does
    not show them, as a system under test through the protocol)."""
    concepts: dict[str, tuple[str, ...]]
    episodes: int | None = None
    """Raw-event scenarios: episodes the encoder formed."""


def run(scenario: Scenario, port: LifecyclePort, limit: int, settings: LifecycleSettings) -> ScenarioRun:
    """The scenario on `port`, which is closed (its namespace dropped) at the end, however it ends."""
    try:
        seeded = seed(scenario, settings)
        queries = [q.query for q in scenario.queries]
        now = 0.0
        port.advance(now)
        port.add(seeded)

        def ask(top: int) -> list[QueryRun]:
            return [QueryRun(q, port.search(q, top)) for q in queries]

        baseline = ask(limit)
        accessed = ask(settings.access_top_k)  # asked even for none: under Hebbian rules a search spreads
        if settings.access_top_k > 0:
            for asked in accessed:
                port.record_access([r.id for r in asked.returned])
        for _ in range(settings.cycles):
            now += settings.cycle_minutes
            port.advance(now)
            port.consolidate()
        post = ask(limit)
        observed = port.observe()
    finally:
        teardown.close(port)
    return ScenarioRun(
        baseline=tuple(baseline),
        post=tuple(post),
        observed=observed,
        concepts={t.id: t.concepts for t in seeded.texts},
        episodes=seeded.episodes,
    )
