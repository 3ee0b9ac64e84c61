"""Latency summary in milliseconds, with percentiles interpolated as numpy.percentile does."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class LatencySummary:
    """Per-query latency statistics in milliseconds; all zeros with count 0 when nothing ran."""

    count: int
    p50_ms: float
    p95_ms: float
    mean_ms: float
    max_ms: float


def _percentile(ordered: Sequence[float], q: float) -> float:
    """numpy.percentile's default ('linear'): interpolate at position (n - 1) * q / 100."""
    position = (len(ordered) - 1) * q / 100
    lower = math.floor(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def latency_summary(seconds: Sequence[float]) -> LatencySummary:
    """Summarise per-query wall times given in seconds; rejects negative or non-finite times."""
    if not seconds:
        return LatencySummary(count=0, p50_ms=0.0, p95_ms=0.0, mean_ms=0.0, max_ms=0.0)
    if not all(math.isfinite(s) and s >= 0 for s in seconds):
        raise ValueError("latencies must be finite and >= 0 seconds")
    ordered = sorted(s * 1000 for s in seconds)
    return LatencySummary(
        count=len(ordered),
        p50_ms=_percentile(ordered, 50),
        p95_ms=_percentile(ordered, 95),
        mean_ms=math.fsum(ordered) / len(ordered),
        max_ms=ordered[-1],
    )
