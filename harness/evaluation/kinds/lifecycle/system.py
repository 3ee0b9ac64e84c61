"""The lifecycle port over a system under test: the scenario's memories ingested with the
harness's times, the clock, access and consolidation driven through the protocol (`advance`,
`record_access`, `consolidate`), so the runner's phases and the judge are the reference's and
the scores comparable.

The simulated clock's minute 0 is `START`; a memory `age_minutes` old is added with that much
earlier a time. A system's memory states are not observable through the protocol, so the
lifecycle shares of them (noise suppression, signal retention, dedup) are not measured for it.
Raw-event scenarios are encoded by the harness as on the reference path, and the encoded
memories are what the system is given.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from harness.models.scenario import Scenario
from harness.pipeline.lifecycle.memory import Seeded
from harness.pipeline.lifecycle.retrieval import Ranked
from harness.pipeline.settings import Mode
from harness.systems.bound import BoundSystem
from harness.systems.protocol import MemorySystem, Query, Record

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


def at(minute: float) -> datetime:
    return START + timedelta(minutes=minute)


class SystemAdapter:
    def __init__(self, system: BoundSystem):
        self._system = system

    def open(self, scenario: Scenario, mode: Mode) -> SystemPort:  # noqa: ARG002 - the system is given every query as asked
        return SystemPort(self._system.open(f"h{uuid.uuid4().hex[:12]}"), mode)


class SystemPort:
    """One scenario on a namespace of the system's own."""

    def __init__(self, opened: MemorySystem, mode: Mode):
        self._opened = opened
        self._mode = mode
        self._now = 0.0
        self._known: set[str] = set()

    def add(self, seeded: Seeded) -> None:
        texts = {t.id: t for t in seeded.texts}
        self._known = set(texts)
        self._opened.add(
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

    def advance(self, minute: float) -> None:
        self._now = minute
        self._opened.advance(at(minute))

    def search(self, query: str, top: int) -> tuple[Ranked, ...]:
        """The system's results, best first; a result without a score ranks by 1 / rank (as a
        dataset's turns do); an id never added is an error of the scenario, never dropped."""
        if top == 0:
            return ()
        found = self._opened.search(Query(query, USER, limit=top, time=at(self._now)), self._mode)
        if unknown := [f.id for f in found if f.id not in self._known]:
            raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
        return tuple(
            Ranked(f.id, f.score if f.score is not None else 1.0 / rank, 0.0, VIA) for rank, f in enumerate(found, 1)
        )

    def record_access(self, ids: Sequence[str]) -> None:
        self._opened.record_access(list(ids))

    def consolidate(self) -> None:
        self._opened.consolidate()

    def observe(self) -> None:
        """Nothing: the protocol shows no memory's state."""

    def close(self) -> None:
        self._opened.close()
