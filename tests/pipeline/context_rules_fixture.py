"""A small invented seed for the context-rule flip tests: one gardener, her kitchen, a neighbour."""

from __future__ import annotations

from datetime import UTC, datetime

from harness.models import Memory, MemoryType

GARDEN = "domain:garden"
KITCHEN = "domain:kitchen"
USER = "ana"


def _m(memory_id: str, kind: MemoryType, scope: str, **extra: object) -> Memory:
    fields: dict[str, object] = {"user": USER, "name": memory_id.replace("-", "_"), "content": f"about {memory_id}"}
    fields.update(extra)
    return Memory.model_validate({"id": memory_id, "type": kind, "scopes": (scope,), **fields})


SEED: tuple[Memory, ...] = (
    _m("raised-beds", MemoryType.PREFERENCE, GARDEN, pinned=True, aliases=("beds", "planters")),
    _m("no-peat", MemoryType.DECISION, GARDEN, pinned=True),
    _m("old-hoe", MemoryType.PREFERENCE, GARDEN, pinned=True, superseded_by="raised-beds"),
    _m("cast-iron", MemoryType.PREFERENCE, KITCHEN, pinned=True),
    _m("which-tomato", MemoryType.OPEN_QUESTION, GARDEN, pinned=True),
    _m("which-hose", MemoryType.OPEN_QUESTION, GARDEN, pinned=True, resolved_at=datetime(2026, 1, 2, tzinfo=UTC)),
    _m("frost-date", MemoryType.OPEN_QUESTION, GARDEN),
    _m("compost-bin", MemoryType.ENTITY, GARDEN),
    _m("rain-barrel", MemoryType.ENTITY, GARDEN),
    _m("sourdough", MemoryType.ENTITY, KITCHEN),
    _m("wheelbarrow", MemoryType.ENTITY, GARDEN, superseded_by="compost-bin"),
    _m("bea-shed", MemoryType.ENTITY, GARDEN, user="bea"),
    _m("bin-feeds-barrel", MemoryType.RELATION, GARDEN, participants=("compost-bin", "rain-barrel")),
    _m("barrel-mixed", MemoryType.RELATION, GARDEN, participants=("sourdough", "bea-shed", "rain-barrel")),
    _m("beds-use-bin", MemoryType.RELATION, GARDEN, participants=("raised-beds", "compost-bin")),
    _m("frost-matters", MemoryType.RELATION, GARDEN, participants=("frost-date",)),
)
