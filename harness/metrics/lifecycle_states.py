"""What consolidation left, scored against the ground-truth labels (peer-formats.md §3.3).

Noise suppression: share of noise memories ending fading, archived or merged. Signal retention:
share of signal memories ending active or fading. `duplicate` counts in neither; ours is scored
by dedup effectiveness: the share of duplicates ending merged (and, where the scenario names
what a duplicate restates, kept on in that memory or in the memory both were merged into).
Raw-event survival: per raw event, the state of the memory encoded from it; a noise event never
encoded counts as suppressed, a signal event never encoded as lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.models.memory import Label
from harness.models.scenario import MemoryState

SUPPRESSED = frozenset({MemoryState.FADING, MemoryState.ARCHIVED, MemoryState.MERGED})
RETAINED = frozenset({MemoryState.ACTIVE, MemoryState.FADING})


def _share(flags: Sequence[bool]) -> float | None:
    """The share of true flags; None when there is nothing to count."""
    return sum(flags) / len(flags) if flags else None


def noise_suppression(labels: Mapping[str, Label], states: Mapping[str, MemoryState | None]) -> float | None:
    """`states[id]` is None for a raw event that was never encoded (suppressed)."""
    return _share([states[i] is None or states[i] in SUPPRESSED for i, label in labels.items() if label is Label.NOISE])


def signal_retention(labels: Mapping[str, Label], states: Mapping[str, MemoryState | None]) -> float | None:
    """`states[id]` is None for a raw event that was never encoded (lost)."""
    return _share([states[i] in RETAINED for i, label in labels.items() if label is Label.SIGNAL])


def dedup_effectiveness(
    labels: Mapping[str, Label],
    states: Mapping[str, MemoryState],
    merged_into: Mapping[str, str | None],
    duplicate_of: Mapping[str, str | None],
) -> float | None:
    """Share of duplicates merged, into what they restate where the scenario says what that is."""

    def merged_well(memory_id: str) -> bool:
        if states[memory_id] is not MemoryState.MERGED:
            return False
        original = duplicate_of.get(memory_id)
        keeper = merged_into.get(memory_id)
        return original is None or keeper in (original, merged_into.get(original))

    return _share([merged_well(i) for i, label in labels.items() if label is Label.DUPLICATE])
