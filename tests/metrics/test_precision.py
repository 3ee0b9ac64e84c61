"""Hand-computed P@k and PrecisionMemBench set precision / recall."""

from __future__ import annotations

from collections.abc import Callable, Collection

import pytest

from harness.metrics import precision_at, set_precision, set_recall

# a, c, e relevant (grades 1, 2, 1); b judged non-relevant; d unjudged.
QRELS = {"a": 1, "b": 0, "c": 2, "e": 1}
RANKING = ["a", "b", "c", "d"]


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, 1.0),  # [a] -> 1/1
        (2, 0.5),  # [a, b] -> 1/2
        (3, 2 / 3),  # [a, b, c] -> 2/3
        (4, 0.5),  # [a, b, c, d] -> 2/4
        (10, 0.2),  # only 4 retrieved, but TREC divides by k: 2/10
    ],
)
def test_precision_at(k: int, expected: float) -> None:
    assert precision_at(RANKING, QRELS, k) == pytest.approx(expected)


def test_precision_at_empty_ranking_is_zero() -> None:
    assert precision_at([], QRELS, 5) == 0.0


def test_precision_at_grade_zero_is_not_relevant() -> None:
    assert precision_at(["b"], {"b": 0}, 1) == 0.0


@pytest.mark.parametrize("k", [0, -1])
def test_precision_at_rejects_k_below_one(k: int) -> None:
    with pytest.raises(ValueError, match="k must be >= 1"):
        precision_at(RANKING, QRELS, k)


def test_precision_at_rejects_duplicates() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        precision_at(["a", "b", "a"], QRELS, 3)


def test_precision_at_rejects_a_bare_string() -> None:
    # "ab" is a Sequence[str] of characters, almost certainly a caller mistake.
    with pytest.raises(TypeError):
        precision_at("ab", {"a": 1}, 2)


def test_set_metrics_partial_overlap() -> None:
    retrieved, expected = ["a", "b", "c"], ["a", "d"]
    assert set_precision(retrieved, expected) == pytest.approx(1 / 3)  # {a} / 3 retrieved
    assert set_recall(retrieved, expected) == pytest.approx(1 / 2)  # {a} / 2 expected


def test_set_metrics_are_undefined_when_nothing_is_expected() -> None:
    assert set_precision(["a"], []) is None
    assert set_recall(["a"], []) is None
    assert set_precision([], []) is None
    assert set_recall([], set()) is None


def test_set_metrics_count_an_empty_answer_as_zero() -> None:
    assert set_precision([], ["a"]) == 0.0
    assert set_recall([], ["a"]) == 0.0


def test_set_metrics_exact_answer() -> None:
    assert set_precision({"a", "b"}, ["b", "a"]) == 1.0
    assert set_recall({"a", "b"}, ["b", "a"]) == 1.0


@pytest.mark.parametrize("metric", [set_precision, set_recall])
def test_set_metrics_reject_duplicates(
    metric: Callable[[Collection[str], Collection[str]], float | None],
) -> None:
    with pytest.raises(ValueError, match="duplicate"):
        metric(["a", "a"], ["a"])
    with pytest.raises(ValueError, match="duplicate"):
        metric(["a"], ["a", "a"])
