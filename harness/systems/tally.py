"""How much a run asked of a system: operations and records through the protocol, counted across
workers, so a report can say its throughput (`--concurrency`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from harness.pipeline.settings import Mode
from harness.systems.protocol import Found, MemorySystem, Query, Record, Settles, SystemInfo


@dataclass(frozen=True, slots=True)
class Counts:
    """Operations (every protocol call but reset and close) and records added."""

    operations: int = 0
    records: int = 0

    def __sub__(self, other: Counts) -> Counts:
        return Counts(self.operations - other.operations, self.records - other.records)


@dataclass
class Tally:
    """A bound system's counts, added to from any worker thread."""

    _counts: Counts = Counts()
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, operations: int, records: int = 0) -> None:
        with self._lock:
            self._counts = Counts(self._counts.operations + operations, self._counts.records + records)

    def snapshot(self) -> Counts:
        with self._lock:
            return self._counts


class Counted:
    """One opened system whose operations are counted in `tally` (the protocol, passed through)."""

    def __init__(self, system: MemorySystem, tally: Tally):
        self._system = system
        self._tally = tally

    @property
    def info(self) -> SystemInfo:
        return self._system.info

    def reset(self) -> None:
        self._system.reset()

    def add(self, records: Sequence[Record]) -> None:
        self._system.add(records)
        self._tally.add(1, len(records))

    def search(self, query: Query, mode: Mode) -> list[Found]:
        found = self._system.search(query, mode)
        self._tally.add(1)
        return found

    def advance(self, now: datetime) -> None:
        self._system.advance(now)
        self._tally.add(1)

    def consolidate(self) -> None:
        self._system.consolidate()
        self._tally.add(1)

    def record_access(self, ids: Sequence[str]) -> None:
        self._system.record_access(ids)
        self._tally.add(1)

    def settle(self) -> None:
        """Passed through to a system that indexes in the background (`Settles`); nothing else."""
        if isinstance(self._system, Settles):
            self._system.settle()
            self._tally.add(1)

    def close(self) -> None:
        self._system.close()
