"""Lifecycle metrics by their definitions (peer-formats.md §3.3), values worked out by hand."""

from __future__ import annotations

import math

import pytest

from harness.metrics.grades import THRESHOLDS, Grade, overall
from harness.metrics.lifecycle_ranking import concept_hits, id_hits, ranking_scores
from harness.metrics.lifecycle_states import dedup_effectiveness, noise_suppression, signal_retention
from harness.models.memory import Label
from harness.models.scenario import MemoryState
from harness.pipeline.lifecycle.fts5 import prefix_bm25

A, F, X, M = MemoryState.ACTIVE, MemoryState.FADING, MemoryState.ARCHIVED, MemoryState.MERGED


def test_precision_divides_by_what_came_back_and_trec_by_the_cutoff() -> None:
    # 3 returned, hits at ranks 1 and 3, 4 expected: k = 3
    scores = ranking_scores([True, False, True], expected=4, cutoff=5)
    assert scores.precision == pytest.approx(2 / 3)
    assert scores.trec_precision == pytest.approx(2 / 5)
    assert scores.recall == pytest.approx(2 / 4)
    assert scores.mrr == 1.0
    # ideal: min(4, k=3) hits at ranks 1..3
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert scores.ndcg == pytest.approx((1 + 1 / math.log2(4)) / ideal)


def test_full_ranking_agrees_with_trec_and_cuts_at_five() -> None:
    scores = ranking_scores([False, True, False, False, False, True], expected=1, cutoff=5)
    assert scores.precision == scores.trec_precision == pytest.approx(1 / 5)
    assert scores.mrr == pytest.approx(1 / 2)
    assert scores.recall == 1.0
    assert scores.ndcg == pytest.approx(1 / math.log2(3))


def test_nothing_returned_scores_zero() -> None:
    scores = ranking_scores([], expected=2, cutoff=5)
    assert (scores.precision, scores.trec_precision, scores.recall, scores.mrr, scores.ndcg) == (0, 0, 0, 0, 0)


def test_hits_by_id_and_by_concept_case_insensitively() -> None:
    assert id_hits(["a", "b", "c"], ["c", "z"]) == [False, False, True]
    assert concept_hits([("Redis", "cache"), ("lunch",), ()], ["redis", "TTL"]) == [True, False, False]


def test_state_shares_follow_the_labels() -> None:
    labels = {"s1": Label.SIGNAL, "s2": Label.SIGNAL, "s3": Label.SIGNAL, "n1": Label.NOISE, "n2": Label.NOISE,
              "d1": Label.DUPLICATE}  # fmt: skip
    states = {"s1": A, "s2": F, "s3": M, "n1": A, "n2": X, "d1": A}
    assert signal_retention(labels, states) == pytest.approx(2 / 3)
    assert noise_suppression(labels, states) == pytest.approx(1 / 2)


def test_never_encoded_noise_is_suppressed_and_never_encoded_signal_lost() -> None:
    labels = {"s1": Label.SIGNAL, "s2": Label.SIGNAL, "n1": Label.NOISE, "n2": Label.NOISE}
    states = {"s1": A, "s2": None, "n1": None, "n2": A}
    assert signal_retention(labels, states) == pytest.approx(1 / 2)
    assert noise_suppression(labels, states) == pytest.approx(1 / 2)
    assert signal_retention({"n1": Label.NOISE}, {"n1": A}) is None


def test_dedup_counts_duplicates_merged_into_what_they_restate() -> None:
    labels = {"o1": Label.SIGNAL, "o2": Label.SIGNAL, "d1": Label.DUPLICATE, "d2": Label.DUPLICATE,
              "d3": Label.DUPLICATE, "d4": Label.DUPLICATE}  # fmt: skip
    states = {"o1": A, "o2": M, "d1": M, "d2": M, "d3": A, "d4": M}
    merged_into = {"o2": "d4", "d1": "o1", "d2": "o1", "d4": "x"}
    duplicate_of = {"d1": "o1", "d2": "o2", "d3": "o1", "d4": None}
    # d1 into o1: yes; d2 into o1, but it restates o2 (merged elsewhere): no; d3 not merged: no;
    # d4 merged, no original named: yes
    assert dedup_effectiveness(labels, states, merged_into, duplicate_of) == pytest.approx(2 / 4)
    # d2 shares o2's keeper: both live on in the same memory
    assert dedup_effectiveness({"d2": Label.DUPLICATE}, states, {"d2": "k", "o2": "k"}, duplicate_of) == 1.0


@pytest.mark.parametrize(
    ("metric", "value", "grade"),
    [
        ("precision", 0.70, Grade.PASS), ("precision", 0.6999, Grade.WARN), ("precision", 0.50, Grade.WARN),
        ("precision", 0.4999, Grade.FAIL), ("mrr", 0.60, Grade.PASS), ("mrr", 0.39, Grade.FAIL),
        ("noise_suppression", 0.40, Grade.WARN), ("signal_retention", 0.80, Grade.PASS),
        ("signal_retention", 0.59, Grade.FAIL), ("ndcg", 0.45, Grade.WARN),
    ],
)  # fmt: skip
def test_grade_thresholds(metric: str, value: float, grade: Grade) -> None:
    assert THRESHOLDS[metric].grade(value) is grade


def test_overall_ignores_ndcg_and_fails_on_any_gating_failure() -> None:
    assert overall({"precision": Grade.PASS, "ndcg": Grade.FAIL}) is Grade.PASS
    assert overall({"precision": Grade.PASS, "mrr": Grade.WARN}) is Grade.WARN
    assert overall({"precision": Grade.WARN, "signal_retention": Grade.FAIL}) is Grade.FAIL


def test_fixed_cutoff_counts_five_however_few_come_back() -> None:
    """Mnemonic's scoreQuery at 8ecf3ab: 1 hit of 2 returned, 3 expected -> P@5 = 1/5 and nDCG's
    ideal holds 3 hits; counted over what came back, P = 1/2 and the ideal holds 2."""
    fixed = ranking_scores([True, False], expected=3, cutoff=5, fixed_cutoff=True)
    assert (fixed.precision, fixed.trec_precision) == (0.2, 0.2)
    assert fixed.ndcg == pytest.approx(1 / (1 + 1 / math.log2(3) + 1 / math.log2(4)))
    returned = ranking_scores([True, False], expected=3, cutoff=5)
    assert returned.precision == 0.5
    assert returned.ndcg == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_prefix_bm25_scores_whole_rows_as_fts5_does() -> None:
    """Two of five rows hold a word beginning with `cache`: idf ln(3.5 / 2.5); average row 1.6
    tokens; a (2 tokens) scores idf x 2.2 / (1 + 1.2 (0.25 + 0.75 x 2 / 1.6)), b (3 tokens) less.
    A prefix every row holds has a negative idf, floored at 1e-6."""
    rows = {"a": ["cache", "x"], "b": ["cacheline", "y", "z"], "c": ["q"], "d": ["r"], "e": ["s"]}
    scores = prefix_bm25(rows, ["cache"])
    idf = math.log(3.5 / 2.5)
    assert scores == pytest.approx(
        {"a": idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 1.6)), "b": idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / 1.6))}
    )
    assert prefix_bm25({"a": ["cache"], "b": ["cache"]}, ["cache"]) == pytest.approx({"a": 1e-6, "b": 1e-6})
