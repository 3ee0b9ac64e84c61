"""mean_defined: the mean over the queries a metric can score."""

from __future__ import annotations

import pytest

from harness.metrics import mean_defined


def test_mean_defined_skips_none() -> None:
    assert mean_defined([1.0, None, 0.0, 0.5]) == pytest.approx(0.5)  # (1 + 0 + 0.5) / 3


def test_mean_defined_keeps_zeros() -> None:
    # 0.0 is a score, not a missing value.
    assert mean_defined([0.0, None]) == 0.0


def test_mean_defined_none_when_nothing_defined() -> None:
    assert mean_defined([None, None]) is None
    assert mean_defined([]) is None


def test_mean_defined_accepts_a_generator() -> None:
    assert mean_defined(x / 4 for x in range(5)) == pytest.approx(0.5)  # (0+.25+.5+.75+1) / 5
