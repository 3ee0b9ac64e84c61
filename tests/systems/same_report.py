"""Two runs' reports compared without what differs between runs of the same items at any
concurrency: how long each took, and when."""

from __future__ import annotations

from typing import Any

from harness.reports.document import TIMING

LATENCY = {"latency_ms", "latency_s", "p50_ms", "p95_ms", "timing", "created_at", "checksum", *TIMING}


def timeless(value: Any) -> Any:
    """A report (or any part of one) without its LATENCY fields, at any depth."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in LATENCY}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value
