"""The comparison rules, each from its statement in `harness/baselines/compare.py`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.baselines import Change, Scope, Verdict, compare
from harness.models.scoresheet import CaseScore, ScoreSheet


def _changes(baseline: ScoreSheet, current: ScoreSheet, tolerance: float = 0.001) -> set[tuple[str, str]]:
    return {(c.verdict.value, c.label()) for c in compare(baseline, current, tolerance).changes}


@pytest.mark.parametrize(
    ("current", "verdict"),
    [
        (0.5, None),  # equal
        (0.4995, None),  # a drop under the tolerance
        (0.499, None),  # a drop of exactly the tolerance (float rounding aside) is not "more than" it
        (0.4989, "regressed"),  # more than the tolerance
        (0.501, None),  # a rise of exactly the tolerance is not an improvement either
        (0.5011, "improved"),
    ],
)
def test_tolerance_boundary_on_overall_measures(current: float, verdict: str | None) -> None:
    changes = _changes(ScoreSheet({"recall": 0.5}), ScoreSheet({"recall": current}))
    assert changes == ({(verdict, "overall recall")} if verdict else set())


def test_a_larger_tolerance_absorbs_a_drop_the_default_flags() -> None:
    baseline, current = ScoreSheet({"ndcg": 0.8}), ScoreSheet({"ndcg": 0.79})
    assert not compare(baseline, current).passed
    assert compare(baseline, current, tolerance=0.01).passed


def test_a_negative_tolerance_is_refused() -> None:
    with pytest.raises(ValueError, match="tolerance"):
        compare(ScoreSheet(), ScoreSheet(), tolerance=-0.1)


def test_case_verdicts_pass_to_fail_regresses_fail_to_pass_improves() -> None:
    baseline = ScoreSheet(cases={"a": CaseScore(True), "b": CaseScore(False), "c": CaseScore(True)})
    current = ScoreSheet(cases={"a": CaseScore(False), "b": CaseScore(True), "c": CaseScore(True)})
    comparison = compare(baseline, current)
    assert comparison.changes == (
        Change(Verdict.REGRESSED, Scope.CASE, "a", "passed", True, False),
        Change(Verdict.IMPROVED, Scope.CASE, "b", "passed", False, True),
    )
    assert comparison.unchanged == 1
    assert not comparison.passed


def test_a_case_that_failed_and_still_fails_is_no_regression() -> None:
    sheet = ScoreSheet({"pass_rate": 0.5}, cases={"a": CaseScore(True), "b": CaseScore(False)})
    assert compare(sheet, sheet).passed
    assert compare(sheet, sheet).changes == ()


def test_case_scores_follow_the_tolerance() -> None:
    baseline = ScoreSheet(cases={"q1": CaseScore(score=0.6), "q2": CaseScore(score=0.6), "q3": CaseScore(score=0.6)})
    current = ScoreSheet(cases={"q1": CaseScore(score=0.5995), "q2": CaseScore(score=0.5), "q3": CaseScore(score=0.9)})
    assert _changes(baseline, current) == {("regressed", "case q2 score"), ("improved", "case q3 score")}


def test_a_case_that_lost_its_score_is_missing_and_fails() -> None:
    baseline, current = ScoreSheet(cases={"q1": CaseScore(score=0.6)}), ScoreSheet(cases={"q1": CaseScore()})
    assert _changes(baseline, current) == {("missing", "case q1 score")}
    assert not compare(baseline, current).passed


def test_new_and_missing_cases() -> None:
    baseline = ScoreSheet(cases={"kept": CaseScore(True), "dropped": CaseScore(False)})
    current = ScoreSheet(cases={"kept": CaseScore(True), "added": CaseScore(False)})
    comparison = compare(baseline, current)
    assert _changes(baseline, current) == {("missing", "case dropped"), ("new", "case added")}
    # a case the baseline had cannot vanish unnoticed, even one that failed; a new one fails nothing
    assert [c.label() for c in comparison.failures] == ["case dropped"]


def test_only_new_items_pass() -> None:
    baseline = ScoreSheet({"recall": 0.5}, cases={"a": CaseScore(True)})
    current = ScoreSheet(
        {"recall": 0.5, "mrr": 0.1}, {"fresh": {"recall": 0.2}}, {"a": CaseScore(True), "b": CaseScore(False)}
    )
    comparison = compare(baseline, current)
    assert _changes(baseline, current) == {("new", "overall mrr"), ("new", "category fresh"), ("new", "case b")}
    assert comparison.passed


def test_categories_compare_measure_by_measure_and_as_a_whole() -> None:
    baseline = ScoreSheet(
        categories={
            "alias": {"pass_rate": 1.0, "recall": 0.9},
            "scope": {"pass_rate": 0.5},
            "gone": {"pass_rate": 1.0},
        }
    )
    current = ScoreSheet(
        categories={
            "alias": {"pass_rate": 0.8, "recall": 0.95},
            "scope": {"pass_rate": 0.5, "ndcg": 0.7},
        }
    )
    assert _changes(baseline, current) == {
        ("regressed", "category alias pass_rate"),
        ("improved", "category alias recall"),
        ("new", "category scope ndcg"),
        ("missing", "category gone"),
    }


def test_a_measure_with_no_value_now_is_missing() -> None:
    baseline = ScoreSheet({"pass_rate": 1.0, "precision": 1.0})
    assert _changes(baseline, ScoreSheet({"pass_rate": 1.0})) == {("missing", "overall precision")}


def test_counts_and_lines_name_each_item() -> None:
    comparison = compare(
        ScoreSheet({"recall": 0.75}, cases={"alias-03": CaseScore(True)}),
        ScoreSheet({"recall": 0.5}, cases={"alias-03": CaseScore(False)}),
    )
    assert comparison.counts() == (
        "cases: 1 regressed, 0 missing, 0 improved, 0 new; overall and category measures: 1 regressed, 0 missing, 0 improved, 0 new"
    )
    assert [c.line() for c in comparison.changes] == [
        "regressed  overall recall: 0.7500 -> 0.5000",
        "regressed  case alias-03 passed: passed -> failed",
    ]


_scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
_names = st.sampled_from(["a", "b", "c", "d"])
_sheets = st.builds(
    ScoreSheet,
    st.dictionaries(_names, _scores, max_size=3),
    st.dictionaries(_names, st.dictionaries(_names, _scores, max_size=3), max_size=3),
    st.dictionaries(_names, st.builds(CaseScore, st.none() | st.booleans(), st.none() | _scores), max_size=4),
)
_OPPOSITE = {
    Verdict.REGRESSED: Verdict.IMPROVED,
    Verdict.IMPROVED: Verdict.REGRESSED,
    Verdict.NEW: Verdict.MISSING,
    Verdict.MISSING: Verdict.NEW,
}


@given(_sheets)
def test_a_sheet_meets_its_own_baseline(sheet: ScoreSheet) -> None:
    comparison = compare(sheet, sheet)
    assert comparison.changes == ()
    assert comparison.passed


@given(_sheets, _sheets)
def test_swapping_baseline_and_run_swaps_every_verdict(first: ScoreSheet, second: ScoreSheet) -> None:
    forward = {(c.label(), c.verdict) for c in compare(first, second).changes}
    backward = {(c.label(), _OPPOSITE[c.verdict]) for c in compare(second, first).changes}
    assert forward == backward
