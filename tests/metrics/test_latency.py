"""Latency summaries: hand-computed values and agreement with numpy.percentile."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.metrics import LatencySummary, latency_summary


def test_hand_computed() -> None:
    # ms, sorted: [10, 20, 30, 40]; n - 1 = 3.
    # p50 at position 1.5  -> 20 + 0.5  * (30 - 20) = 25
    # p95 at position 2.85 -> 30 + 0.85 * (40 - 30) = 38.5
    # mean = 100 / 4 = 25; max = 40.
    summary = latency_summary([0.040, 0.010, 0.030, 0.020])
    assert summary.count == 4
    assert summary.p50_ms == pytest.approx(25.0)
    assert summary.p95_ms == pytest.approx(38.5)
    assert summary.mean_ms == pytest.approx(25.0)
    assert summary.max_ms == pytest.approx(40.0)


def test_single_value() -> None:
    # 0.5 s and 500 ms are both exact in binary floating point.
    assert latency_summary([0.5]) == LatencySummary(count=1, p50_ms=500.0, p95_ms=500.0, mean_ms=500.0, max_ms=500.0)


def test_empty_is_all_zero() -> None:
    assert latency_summary([]) == LatencySummary(count=0, p50_ms=0.0, p95_ms=0.0, mean_ms=0.0, max_ms=0.0)


def test_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        latency_summary([0.1]).count = 2  # type: ignore[misc]


@pytest.mark.parametrize("bad", [-0.001, math.nan, math.inf])
def test_rejects_impossible_times(bad: float) -> None:
    with pytest.raises(ValueError, match="finite and >= 0"):
        latency_summary([0.1, bad])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=100, allow_nan=False), min_size=1, max_size=50))
def test_matches_numpy(seconds: list[float]) -> None:
    ms = np.asarray(seconds) * 1000
    summary = latency_summary(seconds)
    assert summary.count == len(seconds)
    assert summary.p50_ms == pytest.approx(np.percentile(ms, 50), rel=1e-9, abs=1e-9)
    assert summary.p95_ms == pytest.approx(np.percentile(ms, 95), rel=1e-9, abs=1e-9)
    assert summary.mean_ms == pytest.approx(np.mean(ms), rel=1e-9, abs=1e-9)
    assert summary.max_ms == pytest.approx(np.max(ms))
