"""Score sheets (what baselines freeze and regression checks compare) from kinds' results (a belief
run's: `evaluation/kinds/beliefs/scores.py`).

Pure functions: a kind's `report()` calls the one for its results. Every measure a sheet lists is
higher-is-better; latency and error counts are not scores and stay out (errors show as cases that
fail or lose their score).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from harness.metrics import mean_defined
from harness.metrics.dataset_measures import HEADLINE
from harness.models.scoresheet import CaseScore, ScoreSheet

QUESTION_MEASURE = "ndcg@10"
"""A dataset question's one score in a sheet: the ranking measure most sensitive to a move in the
top ten, taken at the run's indexed level (its first)."""


class _Level(Protocol):
    @property
    def level(self) -> str: ...

    @property
    def metrics(self) -> Mapping[str, float]: ...


class _Question(Protocol):
    """The fields of a dataset question's result (one question in one mode) a sheet reads."""

    @property
    def id(self) -> str: ...

    @property
    def category(self) -> str: ...

    @property
    def mode(self) -> str | None: ...

    @property
    def status(self) -> str: ...

    @property
    def levels(self) -> Sequence[_Level]: ...


def dataset_scores(results: Iterable[_Question], measures: Sequence[str] = HEADLINE) -> dict[str, ScoreSheet]:
    """Per mode, from a dataset run's question results: overall and per question category the mean
    of each headline measure at each level, named `<level>/<measure>` (`session/recall_any@5`),
    over the questions that ran (status `ok`); per question its `QUESTION_MEASURE` (no score when
    it errored). Skipped questions (no mode) are in no sheet."""
    by_mode: dict[str, list[_Question]] = defaultdict(list)
    for result in results:
        if result.mode is not None:
            by_mode[str(result.mode)].append(result)
    sheets = {}
    for mode, rows in by_mode.items():
        ran = [row for row in rows if row.status == "ok"]
        by_category: dict[str, list[_Question]] = defaultdict(list)
        for row in ran:
            by_category[row.category].append(row)
        sheets[mode] = ScoreSheet(
            overall=_level_means(ran, measures),
            categories={name: _level_means(group, measures) for name, group in sorted(by_category.items())},
            cases={row.id: CaseScore(score=_question_score(row)) for row in rows},
        )
    return sheets


def _level_means(rows: Sequence[_Question], measures: Sequence[str]) -> dict[str, float]:
    values: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for level in row.levels:
            for measure in measures:
                if measure in level.metrics:
                    values[f"{level.level}/{measure}"].append(level.metrics[measure])
    means = {name: mean_defined(numbers) for name, numbers in values.items()}
    return {name: value for name, value in means.items() if value is not None}


def _question_score(row: _Question) -> float | None:
    if row.status != "ok" or not row.levels:
        return None
    return row.levels[0].metrics.get(QUESTION_MEASURE)
