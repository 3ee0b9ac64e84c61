"""Hand-computed reciprocal rank, with and without a cutoff."""

from __future__ import annotations

import pytest

from harness.metrics import reciprocal_rank

QRELS = {"a": 1, "b": 2, "x": 0}
RANKING = ["x", "y", "a", "b"]  # first relevant (a) at rank 3


def test_no_cutoff() -> None:
    assert reciprocal_rank(RANKING, QRELS) == pytest.approx(1 / 3)


@pytest.mark.parametrize(("k", "expected"), [(1, 0.0), (2, 0.0), (3, 1 / 3), (10, 1 / 3)])
def test_cutoff(k: int, expected: float) -> None:
    assert reciprocal_rank(RANKING, QRELS, k) == pytest.approx(expected)


def test_relevant_first_is_one() -> None:
    assert reciprocal_rank(["b", "a"], QRELS) == 1.0


def test_no_relevant_or_empty_is_zero() -> None:
    assert reciprocal_rank(["x", "y"], QRELS) == 0.0
    assert reciprocal_rank([], QRELS) == 0.0
    assert reciprocal_rank(["a"], {}) == 0.0


def test_validates_inputs() -> None:
    with pytest.raises(ValueError, match="k must be >= 1"):
        reciprocal_rank(RANKING, QRELS, 0)
    with pytest.raises(ValueError, match="duplicate"):
        reciprocal_rank(["a", "a"], QRELS)
