"""mean_defined and the per-query score bundle."""

from __future__ import annotations

import dataclasses
import math

import pytest

from harness.metrics import RankingScores, mean_defined, score_ranking

LOG2_3 = math.log2(3)


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


def test_score_ranking_hand_computed() -> None:
    qrels = {"a": 2, "b": 1, "c": 1}  # 3 relevant
    scores = score_ranking(["x", "a", "b"], qrels, ks=(2, 1))
    assert scores.precision == pytest.approx({1: 0.0, 2: 0.5})  # [x] 0/1; [x, a] 1/2
    assert scores.recall == pytest.approx({1: 0.0, 2: 1 / 3})  # a of {a, b, c}
    assert scores.recall_all == {1: 0.0, 2: 0.0}
    assert scores.success == {1: 0.0, 2: 1.0}
    # @2: DCG = 0 + 2/log2(3); IDCG = 2 + 1/log2(3) -> 1.2618595 / 2.6309298 = 0.4796249
    assert scores.ndcg == pytest.approx({1: 0.0, 2: 0.4796249}, abs=1e-6)
    assert scores.ndcg[2] == pytest.approx((2 / LOG2_3) / (2 + 1 / LOG2_3))
    assert scores.mrr == pytest.approx(0.5)  # a at rank 2


def test_score_ranking_mrr_has_no_cutoff() -> None:
    # First relevant at rank 3, beyond every cutoff in ks.
    assert score_ranking(["x", "y", "a"], {"a": 1}, ks=(1, 2)).mrr == pytest.approx(1 / 3)


def test_score_ranking_default_cutoffs() -> None:
    scores = score_ranking([], {"a": 1})
    assert sorted(scores.precision) == [1, 5, 10]
    assert scores == RankingScores(
        precision={1: 0.0, 5: 0.0, 10: 0.0},
        recall={1: 0.0, 5: 0.0, 10: 0.0},
        recall_all={1: 0.0, 5: 0.0, 10: 0.0},
        success={1: 0.0, 5: 0.0, 10: 0.0},
        ndcg={1: 0.0, 5: 0.0, 10: 0.0},
        mrr=0.0,
    )


def test_score_ranking_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        score_ranking(["a"], {"a": 1}).mrr = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("ranking", "ks", "message"),
    [
        (["a"], (), "at least one cutoff"),
        (["a"], (1, 0), "k must be >= 1"),
        (["a", "a"], (1,), "duplicate"),
    ],
)
def test_score_ranking_validates(ranking: list[str], ks: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_ranking(ranking, {"a": 1}, ks=ks)
