"""Hypothesis properties that every correct implementation must satisfy."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.metrics import (
    evaluate,
    mean_defined,
    measures,
    ndcg_at,
    precision_at,
    recall_all_at,
    recall_at,
    reciprocal_rank,
    set_precision,
    set_recall,
    success_at,
)

from .strategies import DOC_POOL, MAX_K, cutoffs, has_relevant, qrels, rankings

PROPERTY = settings(max_examples=200, deadline=None)


@PROPERTY
@given(rankings, qrels, cutoffs)
def test_ranked_metrics_are_in_unit_interval(ranking: list[str], judged: dict[str, int], k: int) -> None:
    for metric in (precision_at, recall_at, recall_all_at, success_at, ndcg_at, reciprocal_rank):
        assert 0.0 <= metric(ranking, judged, k) <= 1.0, metric.__name__
    assert 0.0 <= reciprocal_rank(ranking, judged) <= 1.0


@PROPERTY
@given(st.sets(st.sampled_from(DOC_POOL)), st.sets(st.sampled_from(DOC_POOL)))
def test_set_metrics_are_in_unit_interval_or_undefined(retrieved: set[str], expected: set[str]) -> None:
    for value in (set_precision(retrieved, expected), set_recall(retrieved, expected)):
        assert (value is None) == (not expected)
        assert value is None or 0.0 <= value <= 1.0


@st.composite
def expected_and_subset(draw: st.DrawFn) -> tuple[set[str], set[str]]:
    """An expected set and a non-empty retrieved set inside it."""
    expected = draw(st.sets(st.sampled_from(DOC_POOL), min_size=1))
    return expected, draw(st.sets(st.sampled_from(sorted(expected)), min_size=1))


@PROPERTY
@given(expected_and_subset())
def test_set_precision_is_one_when_retrieved_is_a_subset(pair: tuple[set[str], set[str]]) -> None:
    expected, retrieved = pair
    assert set_precision(retrieved, expected) == 1.0
    assert set_recall(retrieved, expected) == len(retrieved) / len(expected)


@PROPERTY
@given(rankings, qrels)
def test_recall_is_monotone_in_k(ranking: list[str], judged: dict[str, int]) -> None:
    values = [recall_at(ranking, judged, k) for k in range(1, MAX_K + 1)]
    assert values == sorted(values)
    if has_relevant(judged):
        # Past the end of the ranking, recall is the share of relevant docs retrieved at all.
        retrieved = sum(judged.get(doc, 0) >= 1 for doc in ranking)
        assert values[-1] == retrieved / sum(grade >= 1 for grade in judged.values())


@PROPERTY
@given(qrels, cutoffs, st.data())
def test_ndcg_of_the_ideal_ranking_is_one(judged: dict[str, int], k: int, data: st.DataObject) -> None:
    assume(has_relevant(judged))
    ideal = sorted(judged, key=lambda doc: -judged[doc])  # grades descending, judged only
    others = data.draw(st.permutations([doc for doc in DOC_POOL if doc not in judged]))
    assert abs(ndcg_at(ideal + others, judged, k) - 1.0) < 1e-12


@PROPERTY
@given(rankings, qrels, cutoffs)
def test_ndcg_is_one_only_if_top_k_is_ideal(ranking: list[str], judged: dict[str, int], k: int) -> None:
    # nDCG hits 1 exactly when the top-k grades equal the best possible top-k grades.
    grades = [max(judged.get(doc, 0), 0) for doc in ranking[:k]]
    best = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    is_ideal = bool(best) and grades[: len(best)] == best
    assert (abs(ndcg_at(ranking, judged, k) - 1.0) < 1e-12) == is_ideal


@PROPERTY
@given(rankings, qrels, cutoffs)
def test_reciprocal_rank_is_zero_or_one_over_a_rank(ranking: list[str], judged: dict[str, int], k: int) -> None:
    rr = reciprocal_rank(ranking, judged)
    if rr == 0.0:
        assert not any(judged.get(doc, 0) >= 1 for doc in ranking)
    else:
        rank = round(1 / rr)
        assert 1 <= rank <= len(ranking)
        assert rr == 1 / rank
        assert judged.get(ranking[rank - 1], 0) >= 1
    # A cutoff can only lose the first relevant doc, never move it.
    assert reciprocal_rank(ranking, judged, k) in (0.0, rr)


@PROPERTY
@given(rankings, qrels, cutoffs)
def test_success_bounds_recall_bounds_recall_all(ranking: list[str], judged: dict[str, int], k: int) -> None:
    success, recall = success_at(ranking, judged, k), recall_at(ranking, judged, k)
    assert success >= recall >= recall_all_at(ranking, judged, k)
    # Success is the any-relevant indicator, hence positive exactly when P@k is.
    assert (success > 0) == (precision_at(ranking, judged, k) > 0)


@PROPERTY
@given(rankings, qrels, st.sets(cutoffs, min_size=1))
def test_evaluate_scores_each_record_with_its_function(
    ranking: list[str], judged: dict[str, int], ks: set[int]
) -> None:
    # Distinct descending scores: the run ranks as `ranking` does.
    run = {"q": {doc: float(len(ranking) - rank) for rank, doc in enumerate(ranking)}}
    functions = {"precision": precision_at, "recall": recall_at, "recall_all": recall_all_at, "recall_any": success_at}
    names = [f"{family}@{k}" for family in [*functions, "ndcg"] for k in ks]
    scores = evaluate({"q": judged}, run, measures([*names, "mrr"]))["q"]
    for k in ks:
        for family, function in functions.items():
            assert scores[f"{family}@{k}"] == function(ranking, judged, k)
        assert scores[f"ndcg@{k}"] == ndcg_at(ranking, judged, k)
    assert scores["mrr"] == reciprocal_rank(ranking, judged)


@PROPERTY
@given(st.lists(st.one_of(st.none(), st.floats(min_value=0, max_value=1))))
def test_mean_defined_lies_between_the_defined_values(values: list[float | None]) -> None:
    defined = [v for v in values if v is not None]
    mean = mean_defined(values)
    assert (mean is None) == (not defined)
    if mean is not None:
        assert min(defined) - 1e-12 <= mean <= max(defined) + 1e-12
