"""Under PrecisionMemBench's rules, its measures too (`metrics/precisionmembench.py`): each row of a
belief run read as its runners read a case or a turn, and per mode its summary of the static cases
and of the session turns apart, as its two report files hold them. They go into the score sheet
as `pmb-static/...` and `pmb-session/...` (the leaderboard's PrecisionMemBench columns read them),
into the body as `precisionmembench`, and into the Markdown."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.metrics.precisionmembench import PmbItem, session_item, static_item, summary
from harness.models.scoresheet import ScoreSheet
from harness.models.suite import Suite
from harness.reports.escape import md
from harness.reports.tables import markdown_table

PARTS = ("static", "session")
PREFIX = "pmb-"


def pinned_in_seed(suite: Suite) -> frozenset[str]:
    """The seed's pinned beliefs of the default user (its static runner's `pinnedInSeed`)."""
    corpus = suite.corpus
    return frozenset(m.id for m in corpus.memories if m.pinned and m.user == corpus.default_user)


def item(row: CaseResult, pinned: frozenset[str]) -> PmbItem:
    """A row as PrecisionMemBench measures it (its expectations and tiers as the row recorded them)."""
    relevant_expect: Mapping[str, Any] = row.expected.get("relevant") or {}
    only = relevant_expect.get("should_only_include")
    must = relevant_expect.get("must_include") or ()
    relevant = [r["id"] for r in row.retrieved.get("relevant") or []]
    if row.kind == "session":
        return session_item(
            passed=row.passed,
            should_only_include=only,
            must_include=must,
            relevant=relevant,
            pinned=row.retrieved.get("pinned") or [],
        )
    return static_item(
        passed=row.passed,
        category=row.category or "",
        should_only_include=only,
        must_include=must,
        pinned_in_seed=pinned,
        relevant=relevant,
    )


def summaries(rows: Sequence[CaseResult], suites: Sequence[Suite]) -> dict[str, dict[str, dict[str, float]]]:
    """Per mode, per part (static cases, session turns) that has items, PrecisionMemBench's summary."""
    pinned = {s.name: pinned_in_seed(s) for s in suites}
    grouped: dict[str, dict[str, list[PmbItem]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        grouped[row.mode][row.kind].append(item(row, pinned.get(row.suite, frozenset())))
    return {mode: {part: summary(items) for part, items in parts.items()} for mode, parts in grouped.items()}


def with_pmb(
    sheets: Mapping[str, ScoreSheet], found: Mapping[str, Mapping[str, Mapping[str, float]]]
) -> dict[str, ScoreSheet]:
    """The score sheets with PrecisionMemBench's measures added to each mode's overall."""
    return {
        mode: replace(
            sheet,
            overall={
                **sheet.overall,
                **{
                    f"{PREFIX}{part}/{name}": value
                    for part, values in found.get(mode, {}).items()
                    for name, value in values.items()
                },
            },
        )
        for mode, sheet in sheets.items()
    }


COLUMNS = ("mode", "items", "passed", "active / structural / trivially empty", "precision", "recall", "drift")


def markdown(found: Mapping[str, Mapping[str, Mapping[str, float]]]) -> list[str]:
    """The summaries as a table, under PrecisionMemBench's own definitions."""

    def number(values: Mapping[str, float], name: str) -> str:
        return f"{values[name]:.4f}" if name in values else "–"

    rows = [
        [
            md(f"{mode} {part}"),
            f"{values['items']:.0f}",
            f"{values['passed']:.0f}",
            " / ".join(f"{values[t]:.0f}" for t in ("active", "structural", "trivially_empty")),
            number(values, "precision"),
            number(values, "recall"),
            number(values, "drift"),
        ]
        for mode, parts in found.items()
        for part in PARTS
        if (values := parts.get(part)) is not None
    ]
    return [
        "## Under PrecisionMemBench's definitions",
        "",
        "Its pass types, precision, recall and session drift, as its code at ec8347b defines them "
        "(`harness/metrics/precisionmembench.py`; docs/peer-rules.md).",
        "",
        markdown_table(COLUMNS, rows),
        "",
    ]
