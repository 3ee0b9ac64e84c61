"""Which questions a run asks: all, the first N, N evenly spread, or N stratified by category.

Sampling is by question position in the file, so haystacks can be streamed once and every
choice is reproducible from (method, limit, seed).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from enum import StrEnum

from harness.models.haystack import QuestionRef


class SampleMethod(StrEnum):
    HEAD = "head"
    STRIDE = "stride"
    STRATIFIED = "stratified"


def select(
    refs: Sequence[QuestionRef] | None, limit: int | None, method: SampleMethod, seed: int
) -> frozenset[int] | None:
    """Positions to ask, None for all; `refs` may be None only for `head`, which needs no scan."""
    if limit is None:
        return None
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if refs is None:
        if method is not SampleMethod.HEAD:
            raise ValueError(f"sampling by {method} needs the scanned questions")
        return frozenset(range(limit))
    if limit >= len(refs):
        return frozenset(r.position for r in refs)
    if method is SampleMethod.HEAD:
        return frozenset(r.position for r in refs[:limit])
    if method is SampleMethod.STRIDE:
        return frozenset(refs[i * len(refs) // limit].position for i in range(limit))
    return _stratified(refs, limit, random.Random(seed))


def _stratified(refs: Sequence[QuestionRef], limit: int, rng: random.Random) -> frozenset[int]:
    """Proportional allocation by largest remainder, then a seeded draw within each category."""
    groups: dict[str, list[int]] = defaultdict(list)
    for ref in refs:
        groups[ref.category].append(ref.position)
    shares = {c: limit * len(p) / len(refs) for c, p in groups.items()}
    quota = {c: int(s) for c, s in shares.items()}
    by_remainder = sorted(groups, key=lambda c: (-(shares[c] - quota[c]), c))
    for category in by_remainder[: limit - sum(quota.values())]:
        quota[category] += 1
    return frozenset(p for c, positions in sorted(groups.items()) for p in rng.sample(positions, quota[c]))
