"""A system bound to one engine of a run: what the kinds open namespaces of."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from harness.systems.protocol import MemorySystem, Opening, SystemInfo, SystemSpec


@dataclass(frozen=True)
class BoundSystem:
    """`opening(namespace)`: where a namespace of this run is opened (engine, URL, encoder, ledger)."""

    spec: SystemSpec
    info: SystemInfo
    opening: Callable[[str], Opening]

    @property
    def name(self) -> str:
        return self.spec.name

    def open(self, namespace: str) -> MemorySystem:
        return self.spec.open(self.opening(namespace))


def bind(spec: SystemSpec, opening: Callable[[str], Opening]) -> BoundSystem:
    """The system with what it declares, read by opening (and closing) a namespace of its own
    first, so a system that cannot start fails before the run does."""
    probe = spec.open(opening(f"h{uuid.uuid4().hex[:12]}_probe"))
    try:
        info = probe.info
    finally:
        probe.close()
    return BoundSystem(spec, info, opening)
