"""A memory's mutable lifecycle state, and its form as backend attributes.

The engine stores the state as generic keyword attributes (numbers as their exact `repr`, which
reads back to the same float), filters on `state`, and hands them back through
`Index.attributes`; it knows nothing of what they mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from harness.backends.base import AttributeType, Value
from harness.models.scenario import MemoryState

ATTRIBUTES = {
    name: AttributeType.KEYWORD
    for name in ("state", "salience", "access_count", "last_access", "created_at", "consolidated_at", "merged_into")
}
"""Every attribute a lifecycle memory carries; `last_access` and `merged_into` may be absent."""


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    id: str
    state: MemoryState
    salience: float
    created_at: float
    """Simulated minute of creation (negative: before the scenario's start)."""
    consolidated_at: float
    """Simulated minute of the last consolidation that decayed it (creation before the first)."""
    access_count: int = 0
    last_access: float | None = None
    merged_into: str | None = None

    @property
    def live(self) -> bool:
        return self.state in (MemoryState.ACTIVE, MemoryState.FADING)

    def last_used(self) -> float:
        return self.created_at if self.last_access is None else self.last_access

    def accessed(self, now: float) -> MemoryRecord:
        return replace(self, access_count=self.access_count + 1, last_access=now)

    def attributes(self) -> dict[str, Value]:
        values: dict[str, Value] = {
            "state": self.state.value,
            "salience": repr(self.salience),
            "access_count": str(self.access_count),
            "created_at": repr(self.created_at),
            "consolidated_at": repr(self.consolidated_at),
        }
        if self.last_access is not None:
            values["last_access"] = repr(self.last_access)
        if self.merged_into is not None:
            values["merged_into"] = self.merged_into
        return values

    @classmethod
    def from_attributes(cls, memory_id: str, values: Mapping[str, Value]) -> MemoryRecord:
        def number(name: str) -> float:
            return float(str(values[name]))

        return cls(
            id=memory_id,
            state=MemoryState(str(values["state"])),
            salience=number("salience"),
            created_at=number("created_at"),
            consolidated_at=number("consolidated_at"),
            access_count=int(str(values["access_count"])),
            last_access=number("last_access") if "last_access" in values else None,
            merged_into=str(values["merged_into"]) if "merged_into" in values else None,
        )
