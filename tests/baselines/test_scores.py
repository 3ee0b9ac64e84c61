"""Score sheets from each kind's results, with expected values worked out from their definitions."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import pytest

from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.scores import suite_scores
from harness.models.scoresheet import CaseScore
from harness.reports.scores import dataset_scores


def _case(case_id: str, passed: bool, category: str | None = None, mode: str = "bm25", **numbers) -> CaseResult:
    turn = numbers.pop("turn", None)
    kind = "static" if turn is None else "session"
    return CaseResult(
        "builtin", kind, case_id, numbers.pop("backend", "embedded"), mode, "q", [], "u",
        category=category, turn=turn, passed=passed, **numbers,
    )  # fmt: skip


def test_a_suite_sheet_per_mode_with_the_scorecard_measures() -> None:
    results = [
        _case("a", True, "alias", precision=1.0, recall=1.0, ndcg=1.0, reciprocal_rank=1.0),
        _case("b", False, "alias", precision=0.5, recall=0.5, ndcg=0.6, reciprocal_rank=0.5),
        _case("c", True, "scope"),  # structural: no expected set, no means
        _case("s", True, turn=1, precision=1.0, recall=1.0, ndcg=1.0, reciprocal_rank=1.0),
        _case("s", False, turn=2),
        _case("a", False, "alias", mode="vector", precision=0.2, recall=1.0, ndcg=0.5, reciprocal_rank=0.5),
    ]
    sheets = suite_scores(results)
    assert set(sheets) == {"bm25", "vector"}
    bm25 = sheets["bm25"]
    # 2 of 3 static cases pass, and the one session does not (its second turn fails): 2 of 4
    assert bm25.overall == pytest.approx(
        {"pass_rate": 0.5, "precision": 2.5 / 3, "recall": 2.5 / 3, "ndcg": 2.6 / 3, "mrr": 2.5 / 3}
    )
    assert set(bm25.categories) == {"alias", "scope"}
    assert bm25.categories["alias"] == pytest.approx(
        {"pass_rate": 0.5, "precision": 0.75, "recall": 0.75, "ndcg": 0.8, "mrr": 0.75}
    )
    assert bm25.categories["scope"] == {"pass_rate": 1.0}
    assert bm25.cases == {
        "a": CaseScore(True),
        "b": CaseScore(False),
        "c": CaseScore(True),
        "s#1": CaseScore(True),
        "s#2": CaseScore(False),
    }
    assert sheets["vector"].overall == pytest.approx(
        {"pass_rate": 0.0, "precision": 0.2, "recall": 1.0, "ndcg": 0.5, "mrr": 0.5}
    )


def test_a_suite_sheet_is_of_one_backend() -> None:
    with pytest.raises(ValueError, match="one backend"):
        suite_scores([_case("a", True), _case("a", True, backend="postgres")])


class _Mode(StrEnum):
    BM25 = "bm25"


class _Status(StrEnum):
    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"


class _Granularity(StrEnum):
    SESSION = "session"
    TURN = "turn"


@dataclass(frozen=True)
class _Level:
    level: _Granularity
    metrics: dict[str, float]


@dataclass(frozen=True)
class _Question:
    """The fields of a dataset run's per-question result that a sheet reads."""

    id: str
    category: str
    mode: _Mode | None
    status: _Status
    levels: tuple[_Level, ...] = field(default=())


def _levels(turn_r5: float, turn_ndcg: float, session_r5: float, session_ndcg: float) -> tuple[_Level, ...]:
    return (
        _Level(_Granularity.TURN, {"recall_any@5": turn_r5, "ndcg@10": turn_ndcg, "recall@5": 0.3}),
        _Level(_Granularity.SESSION, {"recall_any@5": session_r5, "ndcg@10": session_ndcg}),
    )


def test_a_dataset_sheet_takes_headline_means_per_level_over_the_questions_that_ran() -> None:
    results = [
        _Question("q1", "A", _Mode.BM25, _Status.OK, _levels(1.0, 0.5, 1.0, 1.0)),
        _Question("q2", "B", _Mode.BM25, _Status.OK, _levels(0.0, 0.0, 0.0, 0.2)),
        _Question("q3", "A", _Mode.BM25, _Status.ERROR),
        _Question("q4", "A", None, _Status.SKIPPED),
    ]
    sheet = dataset_scores(results)["bm25"]
    # recall@5 is no headline measure: it stays out; the errored question lowers no mean
    assert sheet.overall == pytest.approx(
        {"turn/recall_any@5": 0.5, "turn/ndcg@10": 0.25, "session/recall_any@5": 0.5, "session/ndcg@10": 0.6}
    )
    assert sheet.categories == {
        "A": {"turn/recall_any@5": 1.0, "turn/ndcg@10": 0.5, "session/recall_any@5": 1.0, "session/ndcg@10": 1.0},
        "B": {"turn/recall_any@5": 0.0, "turn/ndcg@10": 0.0, "session/recall_any@5": 0.0, "session/ndcg@10": 0.2},
    }
    # a question scores nDCG@10 at the indexed level (turn); the errored one has no score; the skipped one is absent
    assert sheet.cases == {"q1": CaseScore(score=0.5), "q2": CaseScore(score=0.0), "q3": CaseScore()}


def test_a_dataset_sheet_with_only_skipped_questions_is_empty() -> None:
    assert dataset_scores([_Question("q4", "A", None, _Status.SKIPPED)]) == {}
