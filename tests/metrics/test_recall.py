"""Hand-computed recall@k, recall_all@k (LongMemEval) and success@k."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pytest

from harness.metrics import recall_all_at, recall_at, success_at

AtK = Callable[[Sequence[str], Mapping[str, int], int], float]

# Relevant: a, b, c, d (4 docs); x judged non-relevant; y unjudged; d never retrieved.
QRELS = {"a": 1, "b": 3, "c": 1, "d": 1, "x": 0}
RANKING = ["x", "a", "y", "b", "c"]


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, 0.0),  # [x] -> 0/4
        (2, 0.25),  # [x, a] -> 1/4
        (4, 0.5),  # [x, a, y, b] -> 2/4
        (5, 0.75),  # + c -> 3/4
        (10, 0.75),  # d is never retrieved -> still 3/4
    ],
)
def test_recall_at(k: int, expected: float) -> None:
    assert recall_at(RANKING, QRELS, k) == pytest.approx(expected)


@pytest.mark.parametrize(("k", "expected"), [(1, 0.0), (2, 1.0), (5, 1.0)])
def test_success_at(k: int, expected: float) -> None:
    # First relevant doc (a) sits at rank 2; x at rank 1 is grade 0.
    assert success_at(RANKING, QRELS, k) == expected


def test_recall_all_needs_every_relevant_doc() -> None:
    assert recall_all_at(RANKING, QRELS, 10) == 0.0  # d is missing
    qrels = {"a": 1, "b": 2}
    assert recall_all_at(["b", "z", "a"], qrels, 2) == 0.0  # [b, z]: a missing
    assert recall_all_at(["b", "z", "a"], qrels, 3) == 1.0  # [b, z, a]: both in


@pytest.mark.parametrize("metric", [recall_at, recall_all_at, success_at])
def test_no_relevant_doc_scores_zero(metric: AtK) -> None:
    # LongMemEval's all() would give recall_all 1.0 here; we return 0.0 (callers exclude).
    assert metric(["x", "y"], {"x": 0}, 2) == 0.0
    assert metric([], {}, 1) == 0.0


@pytest.mark.parametrize("metric", [recall_at, recall_all_at, success_at])
def test_empty_ranking_scores_zero(metric: AtK) -> None:
    assert metric([], {"a": 1}, 5) == 0.0


@pytest.mark.parametrize("metric", [recall_at, recall_all_at, success_at])
def test_validates_inputs(metric: AtK) -> None:
    with pytest.raises(ValueError, match="k must be >= 1"):
        metric(["a"], {"a": 1}, 0)
    with pytest.raises(ValueError, match="duplicate"):
        metric(["a", "a"], {"a": 1}, 1)
