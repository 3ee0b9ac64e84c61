"""What the lifecycle runner needs of whatever answers a scenario: its memories added, a simulated
clock (minutes from the scenario's start) moved forward, searches, the use of what came back
reported, consolidation cycles, and, where the answering side shows them, its memories' states.

Two adapters answer it: `reference.py` over the harness's pipeline (`pipeline/lifecycle/`) and
`system.py` over any protocol system that declares the capabilities `needed` names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from harness.evaluation.applicable import lacking
from harness.models.scenario import Scenario
from harness.pipeline.lifecycle.consolidation import CycleReport
from harness.pipeline.lifecycle.graph import Edge
from harness.pipeline.lifecycle.memory import Seeded
from harness.pipeline.lifecycle.records import MemoryRecord
from harness.pipeline.lifecycle.retrieval import Ranked
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.settings import Mode
from harness.systems.protocol import Capability, SystemInfo


@dataclass(frozen=True, slots=True)
class Observed:
    """What an answering side that shows its memories' states had at the end of a scenario."""

    final: dict[str, MemoryRecord]
    """Every memory's state."""
    cycles: tuple[CycleReport, ...]
    """What each consolidation cycle did."""
    associations: tuple[Edge, ...]
    """The associations left after the last cycle."""


class LifecyclePort(Protocol):
    """One scenario's memories in one mode, on a namespace of their own."""

    def add(self, seeded: Seeded) -> None:
        """Store the scenario's starting memories, each with its time (minutes before the start)."""

    def advance(self, minute: float) -> None:
        """Move the simulated clock to `minute`; searches, access and consolidation happen then."""

    def search(self, query: str, top: int) -> tuple[Ranked, ...]:
        """The top `top` memories for the query, best first (`top` 0: none, asking nothing of a system)."""

    def record_access(self, ids: Sequence[str]) -> None:
        """These memories were used now."""

    def consolidate(self) -> None:
        """One consolidation cycle, now."""

    def observe(self) -> Observed | None:
        """Every memory's state and what consolidation did, or None where the answering side does not show them."""

    def close(self) -> None:
        """Drop the scenario's namespace."""


class Adapter(Protocol):
    """Opens a port for each scenario and mode of a run on one engine."""

    def open(self, scenario: Scenario, mode: Mode) -> LifecyclePort: ...


def needed(settings: LifecycleSettings) -> tuple[Capability, ...]:
    """What the runner's phases ask of the answering side: times on memories and searches and a
    clock always; access when the access phase bumps any result; consolidation when any cycle runs
    (`--cycles 0`: none). Every scenario runs the same phases, so this is the kind's need."""
    needs = [Capability.TIMESTAMPS, Capability.CLOCK]
    if settings.access_top_k > 0:
        needs.append(Capability.ACCESS)
    if settings.cycles > 0:
        needs.append(Capability.CONSOLIDATION)
    return tuple(needs)


WHAT_FOR = {
    Capability.TIMESTAMPS: "times on memories and searches",
    Capability.CLOCK: "a clock the harness moves on",
    Capability.ACCESS: "the results used reported back",
    Capability.CONSOLIDATION: "consolidation cycles",
}
"""What each capability the runner needs does in a scenario, for the reason a report gives."""


def not_applicable(info: SystemInfo, settings: LifecycleSettings) -> str | None:
    """Why lifecycle scenarios cannot run on this system, naming each capability it lacks."""
    needs = needed(settings)
    why = f"replay memories over simulated time ({', '.join(WHAT_FOR[c] for c in needs)})"
    return lacking("Lifecycle scenarios", why, needs, info)
