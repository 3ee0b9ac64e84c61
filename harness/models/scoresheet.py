"""The scores one run gives per mode, in the shape baselines freeze and regression gates compare.

Every case kind reduces its report to this (higher is better for every measure it lists), so one
baseline format and one check serve suites, lifecycle scenarios, conversations and datasets alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class CaseScore:
    """One case (or question, scenario, turn): whether it passed, where the kind has a verdict,
    and its score, where the kind has one number per case."""

    passed: bool | None = None
    score: float | None = None


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """The numbers of one (suite, backend, mode): overall, per category and per case."""

    overall: Mapping[str, float] = field(default_factory=dict)
    categories: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    cases: Mapping[str, CaseScore] = field(default_factory=dict)


def sheet_json(sheet: ScoreSheet) -> dict[str, Any]:
    """A score sheet as baselines, the history and report envelopes store it (a case keeps only the fields it has)."""
    return {
        "overall": dict(sheet.overall),
        "categories": {name: dict(measures) for name, measures in sheet.categories.items()},
        "cases": {
            case: {name: value for name, value in (("passed", s.passed), ("score", s.score)) if value is not None}
            for case, s in sheet.cases.items()
        },
    }


def sheet_from_json(data: Mapping[str, Any]) -> ScoreSheet:
    """`sheet_json`'s inverse."""
    return ScoreSheet(
        dict(data["overall"]),
        {name: dict(measures) for name, measures in data["categories"].items()},
        {case: CaseScore(c.get("passed"), c.get("score")) for case, c in data["cases"].items()},
    )
