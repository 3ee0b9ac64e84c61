"""The measure records and run-level `evaluate`: names, cut-offs, labels, the tie-break, judged queries."""

from __future__ import annotations

import math

import pytest

from harness.metrics import MRR, evaluate, measure, measures, rank_key, ranked_ids
from harness.metrics.measures import SUITE_MEASURES

LOG2_3 = math.log2(3)


def test_records_parse_their_names() -> None:
    success = measure("recall_any@5")
    assert (success.name, success.cutoff, success.label, success.ir_measures) == (
        "recall_any@5",
        5,
        "R@5 any",
        "Success@5",
    )
    assert "success.5" in success.definition
    assert "top 5" in success.definition
    assert measure("mrr") is MRR
    assert MRR.cutoff is None
    assert MRR.label == "MRR"
    assert [m.label for m in measures(["recall_all@10", "recall@1", "ndcg@10", "precision@3"])] == [
        "R@10 all",
        "recall@1",
        "nDCG@10",
        "P@3",
    ]


@pytest.mark.parametrize("name", ["recall_any", "recall_any@0", "recall_any@-1", "bleu@5", "MRR", "ndcg@5x"])
def test_unknown_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="unknown measure"):
        measure(name)


def test_evaluate_hand_computed() -> None:
    qrels = {"q": {"a": 2, "b": 1, "c": 1}}  # 3 relevant
    run = {"q": {"x": 3.0, "a": 2.0, "b": 1.0}}  # ranked x, a, b
    names = ["precision@1", "precision@2", "recall@2", "recall_all@2", "recall_any@1", "recall_any@2", "ndcg@2"]
    scores = evaluate(qrels, run, measures([*names, "mrr"]))["q"]
    assert scores["precision@1"] == 0.0
    assert scores["precision@2"] == 0.5
    assert scores["recall@2"] == pytest.approx(1 / 3)  # a of {a, b, c}
    assert scores["recall_all@2"] == 0.0
    assert scores["recall_any@1"] == 0.0
    assert scores["recall_any@2"] == 1.0
    # @2: DCG = 0 + 2/log2(3); IDCG = 2 + 1/log2(3)
    assert scores["ndcg@2"] == pytest.approx((2 / LOG2_3) / (2 + 1 / LOG2_3))
    assert scores["mrr"] == 0.5  # a at rank 2


def test_evaluate_ranks_by_the_one_tie_break() -> None:
    # b and a tie once rounded to 9 decimals: id ascending puts a first, whatever the dict order.
    run = {"q": {"b": 0.5, "a": 0.5 - 1e-12, "c": 0.9}}
    assert ranked_ids(run["q"]) == ["c", "a", "b"]
    assert evaluate({"q": {"a": 1}}, run, [MRR])["q"]["mrr"] == 0.5
    assert evaluate({"q": {"b": 1}}, run, [MRR])["q"]["mrr"] == pytest.approx(1 / 3)
    assert rank_key(0.5, "b") > rank_key(0.5 - 1e-12, "a")


def test_evaluate_scores_judged_queries_only_and_a_missing_run_as_zero() -> None:
    scores = evaluate(
        {"q1": {"a": 1}, "q2": {"a": 1}}, {"q1": {"a": 1.0}, "q3": {"a": 1.0}}, [MRR, measure("recall@5")]
    )
    assert scores == {"q1": {"mrr": 1.0, "recall@5": 1.0}, "q2": {"mrr": 0.0, "recall@5": 0.0}}


def test_suite_set_measures() -> None:
    precision, recall, ndcg, mrr = SUITE_MEASURES
    assert precision(["a", "x", "y"], {"a": 1, "b": 1}) == pytest.approx(1 / 3)
    assert recall(["a", "x", "y"], {"a": 1, "b": 1}) == 0.5
    assert precision([], {"a": 1}) == 0.0  # nothing came back: 0, not undefined
    # nDCG over the whole ranking: the relevant doc at rank 3 still counts
    assert ndcg(["x", "y", "a"], {"a": 1}) == pytest.approx(0.5)
    assert mrr(["x", "y", "a"], {"a": 1}) == pytest.approx(1 / 3)
