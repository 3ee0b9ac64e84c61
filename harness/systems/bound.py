"""A system bound to one engine of a run: what the kinds open namespaces of (`bind_on_engine`:
the one binding of `harness run` and the pytest plugin). The reference system is bound like any
other; a kind answers it through its reference adapter, any other through the protocol."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.backends.base import Backend
from harness.backends.ledger import NAMESPACE, Ledger
from harness.pipeline.memory_layer import TextEmbedder
from harness.systems import http, reference
from harness.systems.protocol import MemorySystem, Opening, SystemInfo, SystemSpec
from harness.systems.tally import Counted, Tally


@dataclass(frozen=True)
class BoundSystem:
    """`opening(namespace)`: where a namespace of this run is opened (engine, URL, encoder, ledger)."""

    spec: SystemSpec
    info: SystemInfo
    opening: Callable[[str], Opening]
    tally: Tally = field(default_factory=Tally, compare=False)
    """The requests and records sent to it, across every namespace and worker (a report's throughput)."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def reference(self) -> bool:
        """The reference system: each kind answers it through its reference adapter, not the protocol."""
        return self.spec.open is None

    def open(self, namespace: str) -> MemorySystem:
        if self.spec.open is None:
            raise TypeError(f"system {self.name!r} is answered by the kinds' reference adapters, not opened")
        return Counted(self.spec.open(self.opening(namespace)), self.tally)


def _opens_nothing(namespace: str) -> Opening:
    raise TypeError(f"the reference system opens no namespace ({namespace}) through the protocol")


REFERENCE_BOUND = BoundSystem(reference.SPEC, reference.NATIVE, _opens_nothing)
"""The reference system on any engine: it declares every capability, so it needs no probe."""


def bind(spec: SystemSpec, opening: Callable[[str], Opening]) -> BoundSystem:
    """The system with what it declares, read by opening (and closing) a namespace of its own
    first, so a system that cannot start fails before the run does."""
    if spec.open is None:
        return REFERENCE_BOUND
    probe = spec.open(opening(f"h{uuid.uuid4().hex[:12]}_probe"))
    try:
        info = probe.info
    finally:
        probe.close()
    return BoundSystem(spec, info, opening)


def bind_on_engine(
    spec: SystemSpec,
    backend: Backend,
    name: str,
    url: str | None,
    embedder: TextEmbedder | None,
    *,
    given: bool = False,
    recorded: bool = True,
) -> BoundSystem:
    """The system under test on one engine of a run. With `recorded`, an HTTP service's namespaces go into the ledger of its URL, and on
    a server the user gave (`given`) so do those of a system that writes to it on its own, so
    `harness down --url` can remove what a killed run left; pytest's runs, on servers of their
    own, record nothing."""
    if spec.open is None:
        return REFERENCE_BOUND
    ledger: tuple[Ledger, str] | None = None
    if recorded and spec.name.startswith(http.PREFIX):
        ledger = (Ledger(spec.name.removeprefix(http.PREFIX)), "http")
    elif recorded and given and url is not None and spec.drop is not None:
        ledger = (Ledger(url), spec.name)

    def opening(namespace: str) -> Opening:
        if ledger is None:
            return Opening(backend, name, url, namespace, embedder)
        book, owner = ledger
        return Opening(
            backend,
            name,
            url,
            namespace,
            embedder,
            lambda ns, /, **details: book.record(owner, NAMESPACE, ns, **details),
            lambda ns: book.forget(NAMESPACE, ns),
        )

    return bind(spec, opening)
