"""Why a case passed, so a suite cannot look strong on cases that could not have failed."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum


class PassType(StrEnum):
    """The kind of evidence a passing case gives about retrieval."""

    ACTIVE = "active"
    """Active retrieval: the case expected a non-empty relevant set and got it."""
    STRUCTURAL = "structural"
    """Passed on pinned / open-question / prelude / exclusion assertions only."""
    TRIVIALLY_EMPTY = "trivially_empty"
    """Expected no relevant memory, and no relevant slot could have been filled anyway."""


def classify(
    *,
    expected_relevant: Sequence[str] | None,
    query: str,
    max_beliefs: int | None,
    pinned_count: int,
) -> PassType:
    """Classify a passing case.

    Trivially empty is checked first: nothing relevant expected and the outcome forced by an
    empty (or blank) query or by `max_beliefs <= pinned_count` (pinned memories take every
    slot; this covers `max_beliefs == 0`). Otherwise a non-empty expected set is active and
    an empty one structural. `max_beliefs=None` means no limit.
    """
    if pinned_count < 0:
        raise ValueError(f"pinned_count must be >= 0, got {pinned_count}")
    if max_beliefs is not None and max_beliefs < 0:
        raise ValueError(f"max_beliefs must be >= 0, got {max_beliefs}")
    expected_empty = not expected_relevant
    no_relevant_slot = max_beliefs is not None and max_beliefs <= pinned_count
    if expected_empty and (not query.strip() or no_relevant_slot):
        return PassType.TRIVIALLY_EMPTY
    return PassType.STRUCTURAL if expected_empty else PassType.ACTIVE
