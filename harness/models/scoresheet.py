"""The scores one run gives per mode, in the shape baselines freeze and regression gates compare.

Every case kind reduces its report to this (higher is better for every measure it lists), so one
baseline format and one check serve suites, lifecycle scenarios, conversations and datasets alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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
