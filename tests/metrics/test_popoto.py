"""Popoto's recall@k and ranking rules: hand-worked cases that each rule decides, and properties."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.metrics.popoto import (
    POPOTO_RULES,
    GoldUnit,
    RankingRule,
    RecallDefinition,
    popoto_ranking,
    popoto_recall,
    popoto_recall_at,
)
from harness.metrics.recall import recall_at, success_at

ANY_HIT = RecallDefinition.ANY_HIT
FRACTIONAL = RecallDefinition.FRACTIONAL


def _qrels(*ids: str) -> dict[str, int]:
    return dict.fromkeys(ids, 1)


def test_any_hit_counts_one_gold_session_of_two() -> None:
    ranking = ("s1", "s2", "s3")
    gold = _qrels("s1", "s9")
    # Flipped (fractional, before #438): the same top 1 scores a half.
    assert popoto_recall_at(ANY_HIT, ranking, gold, 1) == 1.0
    assert popoto_recall_at(FRACTIONAL, ranking, gold, 1) == 0.5


def test_fractional_recall_is_the_share_of_gold_in_the_top_k() -> None:
    """Popoto's `recall_at_k` at 273b491 by hand: gold {a, b, c}; top 3 of a, x, b, c holds a and
    b: 2/3; top 4 holds all three: 1; any-hit gives 1 for both."""
    ranking, gold = ("a", "x", "b", "c"), _qrels("a", "b", "c")
    assert popoto_recall_at(FRACTIONAL, ranking, gold, 3) == 2 / 3
    assert popoto_recall_at(FRACTIONAL, ranking, gold, 4) == 1.0
    assert popoto_recall_at(ANY_HIT, ranking, gold, 3) == 1.0


def test_question_without_gold_scores_zero() -> None:
    measure = popoto_recall(ANY_HIT, 5)
    assert measure(("s1",), {}) == 0.0
    assert measure((), _qrels("s1")) == 0.0
    assert measure.name == "popoto_any-hit_recall@5"
    assert measure.cutoff == 5


RECORDS = (("session_1", "D1:1"), ("session_1", "D1:2"), ("session_2", "D2:1"), ("session_1", "D1:7"))


def test_turn_unit_ranking_is_gold_blind() -> None:
    rules = POPOTO_RULES["popoto", "locomo"]
    ranking = popoto_ranking(rules, RECORDS, frozenset({"D1:7"}))
    assert ranking == ("D1:1", "D1:2", "D2:1", "D1:7")
    assert popoto_recall_at(rules.recall, ranking, _qrels("D1:7"), 3) == 0.0


def test_gold_aware_ranking_lifts_gold_turns() -> None:
    rules = POPOTO_RULES["popoto@pre-514", "locomo"]
    ranking = popoto_ranking(rules, RECORDS, frozenset({"D1:7"}))
    # Every non-gold turn of session_1 shares one place, so the gold turn climbs into the top 3.
    assert ranking == ("session_1", "session_2", "D1:7")
    assert popoto_recall_at(rules.recall, ranking, _qrels("D1:7"), 3) == 1.0


def test_session_gold_ranks_sessions_by_first_place_under_both_rules() -> None:
    records = (("a", "a::0"), ("b", "b::3"), ("a", "a::1"), ("c", "c::0"))
    for name in ("popoto", "popoto@pre-514"):
        assert popoto_ranking(POPOTO_RULES[name, "longmemeval-s"], records, frozenset({"c"})) == ("a", "b", "c")


def test_rules_per_dataset() -> None:
    assert POPOTO_RULES["popoto", "longmemeval-s"].gold_unit is GoldUnit.SESSION
    assert POPOTO_RULES["popoto", "locomo"].gold_unit is GoldUnit.TURN
    assert POPOTO_RULES["popoto@pre-438", "longmemeval-s"].ranking is RankingRule.GOLD_AWARE
    assert all(r.depth == 20 and r.without_gold_in_mean for r in POPOTO_RULES.values())


ids = st.text(alphabet="abcdef", min_size=1, max_size=2)


@given(st.lists(ids, unique=True, max_size=12), st.sets(ids, min_size=1, max_size=5), st.integers(1, 12))
def test_definitions_equal_the_harness_measures_on_a_unique_ranking(ranking: list[str], gold: set[str], k: int) -> None:
    qrels = _qrels(*gold)
    assert popoto_recall_at(ANY_HIT, tuple(ranking), qrels, k) == success_at(ranking, qrels, k)
    assert popoto_recall_at(FRACTIONAL, tuple(ranking), qrels, k) == recall_at(ranking, qrels, k)


@given(st.lists(st.tuples(ids, ids), max_size=15), st.sets(ids, max_size=4))
def test_rankings_are_unique_and_only_the_gold_aware_one_reads_the_gold(
    records: list[tuple[str, str]], gold: set[str]
) -> None:
    for rules in POPOTO_RULES.values():
        ranking = popoto_ranking(rules, records, frozenset(gold))
        assert len(set(ranking)) == len(ranking)
        if rules.ranking is RankingRule.UNIT:
            assert ranking == popoto_ranking(rules, records, frozenset())
        else:
            assert {i for pair in records for i in pair if i in gold} <= set(ranking)
