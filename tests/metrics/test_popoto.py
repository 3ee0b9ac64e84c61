"""Popoto's recall@k and ranking, against hand-worked cases and properties, with flips."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.metrics.popoto import POPOTO_RULES, GoldUnit, popoto_ranking, popoto_recall, popoto_recall_at
from harness.metrics.recall import recall_at, success_at


def _qrels(*ids: str) -> dict[str, int]:
    return dict.fromkeys(ids, 1)


def test_recall_is_the_fraction_found_not_any_found() -> None:
    ranking = ("s1", "s2", "s3")
    # Two gold sessions, one in the top 1: Popoto says 0.5 where recall_any says 1.
    assert popoto_recall_at(ranking, _qrels("s1", "s9"), 1) == 0.5
    assert success_at(ranking, _qrels("s1", "s9"), 1) == 1.0


def test_question_without_gold_scores_zero_and_counts() -> None:
    measure = popoto_recall(5)
    assert measure(("s1",), {}) == 0.0
    assert measure((), _qrels("s1")) == 0.0
    assert measure.name == "popoto_recall@5"
    assert measure.cutoff == 5


def test_turn_gold_ranking_collapses_non_gold_turns_of_a_session() -> None:
    records = [("session_1", "D1:1"), ("session_1", "D1:2"), ("session_2", "D2:1"), ("session_1", "D1:7")]
    ranking = popoto_ranking(records, frozenset({"D1:7"}))
    # Flipped (each record stands for its own turn): the gold turn would sit fourth, outside the top 3.
    assert ranking == ("session_1", "session_2", "D1:7")
    assert popoto_recall_at(ranking, _qrels("D1:7"), 3) == 1.0
    plain = tuple(turn for _, turn in records)
    assert popoto_recall_at(plain, _qrels("D1:7"), 3) == 0.0


def test_session_gold_ranking_is_sessions_by_first_place() -> None:
    records = [("a", "a::0"), ("b", "b::3"), ("a", "a::1"), ("c", "c::0")]
    assert popoto_ranking(records, frozenset({"c"})) == ("a", "b", "c")


def test_rules_per_dataset() -> None:
    assert POPOTO_RULES["longmemeval-s"].gold_unit is GoldUnit.SESSION
    assert POPOTO_RULES["locomo"].gold_unit is GoldUnit.TURN
    assert all(r.depth == 20 and r.keeps_unanswerable for r in POPOTO_RULES.values())


ids = st.text(alphabet="abcdef", min_size=1, max_size=2)


@given(st.lists(ids, unique=True, max_size=12), st.sets(ids, min_size=1, max_size=5), st.integers(1, 12))
def test_equals_trec_recall_on_a_unique_ranking(ranking: list[str], gold: set[str], k: int) -> None:
    qrels = _qrels(*gold)
    expected = recall_at(ranking, qrels, k) if ranking else 0.0
    assert popoto_recall_at(tuple(ranking), qrels, k) == expected
    assert 0.0 <= expected <= success_at(ranking, qrels, k)


@given(st.lists(st.tuples(ids, ids), max_size=15), st.sets(ids, max_size=4))
def test_ranking_is_unique_and_keeps_every_gold_record(records: list[tuple[str, str]], gold: set[str]) -> None:
    ranking = popoto_ranking(records, frozenset(gold))
    assert len(set(ranking)) == len(ranking)
    hit = {i for pair in records for i in pair if i in gold}
    assert hit <= set(ranking)
