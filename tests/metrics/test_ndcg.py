"""Hand-computed nDCG@k with trec_eval's linear gain and ideal-at-k."""

from __future__ import annotations

import math

import pytest

from harness.metrics import ndcg_at

LOG2_3 = math.log2(3)  # 1.5849625...; discount at rank 2. Rank 1: log2(2) = 1; rank 3: log2(4) = 2.


def test_graded_uses_linear_not_exponential_gain() -> None:
    qrels = {"a": 3, "b": 1, "c": 2}
    ranking = ["b", "a", "d"]  # grades 1, 3, 0 (d unjudged)
    # Linear:  DCG  = 1/1 + 3/log2(3) + 0/2           = 1 + 1.8927893           = 2.8927893
    #          IDCG = 3/1 + 2/log2(3) + 1/2 (a, c, b) = 3 + 1.2618595 + 0.5     = 4.7618595
    #          nDCG = 2.8927893 / 4.7618595                                      = 0.6074915
    linear = (1 + 3 / LOG2_3) / (3 + 2 / LOG2_3 + 1 / 2)
    # Burges:  DCG  = (2^1-1)/1 + (2^3-1)/log2(3)     = 1 + 4.4165083           = 5.4165083
    #          IDCG = 7/1 + 3/log2(3) + 1/2           = 7 + 1.8927893 + 0.5     = 9.3927893
    #          nDCG                                                              = 0.5766666
    exponential = (1 + 7 / LOG2_3) / (7 + 3 / LOG2_3 + 1 / 2)
    assert linear == pytest.approx(0.6074915, abs=1e-6)
    assert exponential == pytest.approx(0.5766666, abs=1e-6)
    assert ndcg_at(ranking, qrels, 3) == pytest.approx(linear)


def test_binary_gains_agree_with_hand_value() -> None:
    # Relevant a, b; ranking [x, a, b]: DCG = 0 + 1/log2(3) + 1/2; IDCG = 1 + 1/log2(3).
    expected = (1 / LOG2_3 + 0.5) / (1 + 1 / LOG2_3)  # = 1.1309298 / 1.6309298 = 0.6934264
    assert expected == pytest.approx(0.6934264, abs=1e-6)
    assert ndcg_at(["x", "a", "b"], {"a": 1, "b": 1}, 3) == pytest.approx(expected)


def test_ideal_is_truncated_at_k() -> None:
    qrels = {"a": 1, "b": 1, "c": 1}
    # k=1: DCG = 1; IDCG@1 = 1 (not 1 + 1/log2(3) + 1/2) -> 1.0.
    assert ndcg_at(["a"], qrels, 1) == pytest.approx(1.0)
    # k=2, only a retrieved: DCG = 1; IDCG@2 = 1 + 1/log2(3) = 1.6309298 -> 0.6131472.
    assert ndcg_at(["a"], qrels, 2) == pytest.approx(0.6131472, abs=1e-6)


def test_ideal_ranking_is_one() -> None:
    assert ndcg_at(["a", "c", "b", "z"], {"a": 3, "b": 1, "c": 2}, 10) == pytest.approx(1.0)


def test_non_positive_grades_carry_no_gain() -> None:
    # a has grade -1 (as in TREC spam judgements): gain 0. DCG = 0 + 1/log2(3); IDCG = 1.
    assert ndcg_at(["a", "b"], {"a": -1, "b": 1}, 5) == pytest.approx(1 / LOG2_3)


def test_no_relevant_or_empty_is_zero() -> None:
    assert ndcg_at(["a", "b"], {"a": 0}, 5) == 0.0
    assert ndcg_at(["a"], {}, 5) == 0.0
    assert ndcg_at([], {"a": 2}, 5) == 0.0


def test_validates_inputs() -> None:
    with pytest.raises(ValueError, match="k must be >= 1"):
        ndcg_at(["a"], {"a": 1}, 0)
    with pytest.raises(ValueError, match="duplicate"):
        ndcg_at(["a", "a"], {"a": 1}, 2)
