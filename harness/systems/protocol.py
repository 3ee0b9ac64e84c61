"""What a memory system under test is to the harness: the operations the kinds need, no more.

A system is opened on one engine of the run (`Opening`: the harness's backend client, its server
URL, the run's namespace and the harness's local text encoder) and holds its data under that
namespace only. The kinds ingest `Record`s, ask `Query`s and judge the `Found` ids themselves:
time, ids and judging stay the harness's, so scores are comparable across systems. Each system
declares what it supports (`SystemInfo.capabilities`, `modes`); a kind that needs an operation a
system lacks reports itself *not applicable* for that system, and a case that needs semantics it
does not declare says so in its reasons.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from harness.backends.base import Backend
from harness.backends.ledger import Entry
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode

REFERENCE = "reference"
"""The harness's own pipeline: the system every run tests unless `--system` names another."""
REFERENCE_NAME = "reference pipeline"
"""What reports show it as (its `SystemInfo.declared_name`; a report from before that field says nothing)."""


def file_key(system: str) -> str:
    """A system's name as report file names carry it (`http:http://127.0.0.1:8080` -> `http-127.0.0.1-8080`)."""
    plain = re.sub(r"^http:(https?)://", r"\1-", system.lower())
    return re.sub(r"[^a-z0-9._]+", "-", plain).strip("-.") or "system"


class Capability(StrEnum):
    """What a system may declare beyond ingest and search (the bare PrecisionMemBench contract)."""

    USERS = "users"
    """Records and queries of different users never see each other."""
    SCOPES = "scopes"
    """Records carry scopes; a query sees only records sharing one of its scopes."""
    TIMESTAMPS = "timestamps"
    """Records carry their time and queries the time they are asked at."""
    CLOCK = "clock"
    """`advance(now)`: simulated time moves forward (decay, expiry)."""
    CONSOLIDATION = "consolidation"
    """`consolidate()`: one consolidation cycle over what is stored."""
    ACCESS = "access"
    """`record_access(ids)`: retrieval of these records is reported back to the system."""
    BUDGET = "budget"
    """A query's `budget_tokens` caps what the system returns."""
    REPLACE = "replace"
    """`add` of a record whose id is stored replaces it (a session's updates)."""
    SUPERSESSION = "supersession"
    """Records superseded by another (`attributes["superseded_by"]`) are not returned."""
    PINNED = "pinned"
    """Records marked pinned (`attributes["pinned"]`) are returned for every query of their user and scope."""
    INTENT = "intent"
    """A conversation turn's context carries the message's intent (chat, overview, specific): the
    reference pipeline's classification; the protocol has no operation that returns one."""
    CODE_GRAPH = "code-graph"
    """Records found by name with their call edges and routes, for a code task's tools to walk
    (symbols lookup, flow, impact, trace): the reference pipeline's project memory; the protocol
    has no operation for either."""


@dataclass(frozen=True, slots=True)
class Record:
    """One memory to ingest. `id` is the harness's, and comes back in `Found.id`; `attributes`
    carries what a suite knows beyond the text (type, status, pinned, supersession, session id),
    which a system may use or ignore."""

    id: str
    text: str
    user: str
    scopes: tuple[str, ...] = ()
    time: datetime | None = None
    attributes: Mapping[str, str | bool | int | float] = field(default_factory=dict)
    aliases: tuple[str, ...] | None = None
    """Names a leaderboard's client sends beside the text (PrecisionMemBench's `aliases`); None:
    not sent. A system that does not speak that contract ignores them."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """What a leaderboard's client adds to `/add`'s `metadata` beside `beliefId` (PrecisionMemBench's
    scope, type, pinned, superseded_by), sent as given by the bare HTTP contract."""


@runtime_checkable
class Settles(Protocol):
    """A system that indexes in the background: `settle()` returns once what was added is
    searchable (an HTTP wrapper's `POST /wait`, where it is declared to need one)."""

    def settle(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Query:
    """One retrieval: `limit` results at most; `budget_tokens` (where the system declares `budget`)
    caps the tokens of what is returned; `time` is when it is asked (with `timestamps`)."""

    text: str
    user: str
    scopes: tuple[str, ...] = ()
    limit: int = 20
    budget_tokens: int | None = None
    time: datetime | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """One result, best first: the record's id as ingested, with the system's score and text when it gives them."""

    id: str
    score: float | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """What the report records about the system, and what the kinds may ask of it."""

    name: str
    version: str
    capabilities: frozenset[Capability] = frozenset()
    modes: tuple[Mode, ...] = (Mode.HYBRID,)
    """The retrieval modes it offers: a mode it lacks is not run for it (said, never faked)."""
    notes: tuple[str, ...] = ()
    declared_name: str | None = None
    """The name it gives itself, where `name` (what `--system` takes, reports are keyed by) is not
    it: an HTTP service's `GET /capabilities` `name`, whose `name` here is `http:URL`; None: `name`."""
    max_concurrency: int | None = 1
    """How many of a run's tasks (namespaces) it serves at once (`--concurrency` is capped to it);
    None: no limit of its own. 1 by default: a system is run concurrently only where it says it can."""
    serial_reason: str | None = None
    """Why it runs one task at a time, where it does (said when `--concurrency` asks for more)."""

    def supports(self, *needed: Capability) -> bool:
        return set(needed) <= self.capabilities

    def missing(self, *needed: Capability) -> list[Capability]:
        return [c for c in needed if c not in self.capabilities]

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "version": self.version,
            "capabilities": sorted(c.value for c in self.capabilities),
            "modes": [m.value for m in self.modes],
            "notes": list(self.notes),
            "declared_name": self.declared_name,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SystemInfo:
        """A report's `system` read back (`harness merge` reports the shards as their run did)."""
        return cls(
            str(data["name"]),
            str(data["version"]),
            frozenset(Capability(c) for c in data["capabilities"]),
            tuple(Mode(m) for m in data["modes"]),
            tuple(data["notes"]),
            data.get("declared_name"),  # absent from reports written before it
        )


_SAFE_NAMESPACE = re.compile(r"[A-Za-z0-9_]{1,60}")


def checked_namespace(namespace: str) -> str:
    """A ledger entry's namespace, if it is one the harness could have made (letters, digits, _):
    `SystemSpec.drop` builds key patterns, table and folder names from it."""
    if not _SAFE_NAMESPACE.fullmatch(namespace):
        raise ValueError(f"not a harness namespace (letters, digits, _; at most 60): {namespace!r}")
    return namespace


class Recorder(Protocol):
    """`record(namespace, **details)`: a namespace enters the run's ledger before anything exists
    under it; `details` (strings) are what `SystemSpec.drop` needs beyond the name, e.g. a folder."""

    def __call__(self, namespace: str, /, **details: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Opening:
    """Where a system is opened: one engine of the run and one namespace on it.

    `backend`: the harness's client of the engine (the reference system stores through it);
    `backend_name` and `url` (None for the in-process engine): the engine's server, for a system
    that connects on its own; `namespace`: every key, table, collection or user id it writes is
    under it, and `MemorySystem.close` removes it; `embedder`: the harness's local text encoder
    (None when no mode of the run needs vectors); `record`/`forget`: the run's ledger, for a
    system that creates namespaces on a server the run did not start (`--url`)."""

    backend: Backend
    backend_name: str
    url: str | None
    namespace: str
    embedder: TextEmbedder | None = None
    record: Recorder = lambda _namespace, /, **_details: None
    forget: Callable[[str], None] = lambda _namespace: None


@runtime_checkable
class MemorySystem(Protocol):
    """One system opened on one namespace. `add` and `search` are the bare contract; the rest is
    called only where `info.capabilities` declares it (else a kind is not applicable)."""

    @property
    def info(self) -> SystemInfo: ...

    def reset(self) -> None:
        """Remove everything this namespace holds (never anything outside it)."""
        ...

    def add(self, records: Sequence[Record]) -> None:
        """Ingest records; they are searchable when it returns."""
        ...

    def search(self, query: Query, mode: Mode) -> list[Found]:
        """The records retrieved for `query` in `mode`, best first, at most `query.limit`."""
        ...

    def advance(self, now: datetime) -> None:
        """Move simulated time to `now` (`clock`)."""
        ...

    def consolidate(self) -> None:
        """Run one consolidation cycle (`consolidation`)."""
        ...

    def record_access(self, ids: Sequence[str]) -> None:
        """Tell the system these records were used (`access`)."""
        ...

    def close(self) -> None:
        """Drop the namespace and release connections; the system is unusable after."""
        ...


class Unsupported(Exception):
    """An operation the system does not declare was called."""

    def __init__(self, system: str, capability: Capability):
        super().__init__(f"system {system!r} does not declare {capability.value!r}")
        self.capability = capability


@dataclass(frozen=True)
class SystemSpec:
    """One system, declared once (the registry lists them; third parties by entry point).

    `open(opening)`: the system on one namespace (None for the reference system alone: it answers
    through each kind's own adapter over the harness's pipeline, every capability of every kind,
    never through this protocol); `backends`: the engines it runs on (None: any,
    as the reference system, or none of the harness's, as an HTTP service); `summary`: one line
    for `--help` and errors; `drop(url, entry)`: for `harness down --url`, remove what a killed
    run left under the entry's namespace on the server at `url` (True when removed; ValueError for
    a name the system never writes), for a system that writes to the engine on its own (None: one
    that stores only through the harness's backend, whose ledger covers it); `encoder`: whether it
    embeds with the harness's local encoder (`Opening.embedder`); False for one that embeds on its
    own (an HTTP service), so a run of only such systems loads no model and embeds nothing;
    `declared()`: what the system declares, asked before the run where no engine is needed for it
    (an HTTP service's `GET /capabilities`), so a mode it does not offer is refused before anything
    runs (None: known once bound to an engine)."""

    name: str
    open: Callable[[Opening], MemorySystem] | None
    summary: str
    backends: frozenset[str] | None = None
    drop: Callable[[str, Entry], bool] | None = None
    encoder: bool = True
    declared: Callable[[], SystemInfo] | None = None

    def runs_on(self, backend: str) -> bool:
        return self.backends is None or backend in self.backends
