"""Hand-computed session drift scores."""

from __future__ import annotations

import pytest

from harness.metrics import drift_score


@pytest.mark.parametrize(
    ("noise", "relevant", "pinned", "expected"),
    [
        (3, 4, 2, 0.5),  # 3 / (4 + 2)
        (0, 5, 0, 0.0),  # no noise is perfect
        (4, 0, 1, 4.0),  # 4 / (0 + 1): unbounded above
        (1, 3, 0, 1 / 3),  # 1 / (3 + 0)
        (2, 0, 0, 0.0),  # zero denominator -> 0.0 by definition
        (0, 0, 0, 0.0),
    ],
)
def test_drift_score(noise: int, relevant: int, pinned: int, expected: float) -> None:
    assert drift_score(noise, relevant, pinned) == pytest.approx(expected)


@pytest.mark.parametrize("counts", [(-1, 1, 1), (1, -1, 1), (1, 1, -1)])
def test_rejects_negative_counts(counts: tuple[int, int, int]) -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        drift_score(*counts)
