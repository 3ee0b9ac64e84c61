"""`harness compare` as one self-contained page beside its Markdown: every compared report x mode
with its overall scores (one table per kind, as kinds score different measures), the paired
randomization test the compare table prints for each pair of runs sharing items, and, under each
test, the items on which the two runs differ, each opening to both records. Built from the compared
reports' JSON alone, like the run page; nothing is fetched when it opens."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from harness.metrics.significance import ALPHA
from harness.reports.compare import ITEM_MEAN, NOT_RUN, Compared, Difference, Scored, item_mean, scored
from harness.reports.document import rules_name
from harness.reports.html.page import GENERATOR, environment, inline
from harness.reports.html.rows import Row, rows
from harness.reports.system_label import system_label

LISTED = 1000
"""Differing items listed per test (each with both records); the count says how many there are."""


def _scores(reports: Sequence[Compared]) -> list[dict[str, Any]]:
    """Per kind, a table: one row per report and mode (`compare.scored`: a report with no scores
    is a row saying why), a column per overall measure of that kind."""
    by_kind: dict[str, list[Scored]] = {}
    for each in reports:
        for row in scored(each):
            by_kind.setdefault(each.report["kind"], []).append(row)
    tables = []
    for kind, entries in by_kind.items():
        measures = list(dict.fromkeys(m for row in entries for m in (row.sheet or {}).get("overall") or {}))
        tables.append(
            {
                "kind": kind,
                "measures": measures,
                "rows": [
                    {
                        "suite": f"{row.each.report['suite']} · {rules_name(row.each.report)}",
                        "system": system_label(row.each.report),
                        "cells": [
                            row.each.report["backend"]["backend"],
                            row.mode,
                            row.each.label,
                            NOT_RUN if row.sheet is None else len(row.sheet.get("cases") or {}),
                            NOT_RUN if row.sheet is None else item_mean(row.each, row.mode),
                        ],
                        "scores": [(row.sheet or {}).get("overall", {}).get(m) for m in measures],
                        "unscored": row.unscored,
                    }
                    for row in entries
                ],
            }
        )
    return tables


def _records(report: Compared, mode: str) -> dict[str, Row]:
    """The report's rows of one mode by the id its score sheet uses (a belief row's id adds its suite)."""
    found: dict[str, Row] = {}
    for row in rows(report.report)[1]:
        if row.mode == mode:
            found.setdefault(row.id, row)
            found.setdefault(row.id.partition("/")[2], row)
    return found


def _record(row: Row | None) -> str:
    return "" if row is None else json.dumps(row.item, indent=1, ensure_ascii=False, default=str)


def _differing(difference: Difference) -> dict[str, Any]:
    """The test as the compare table prints it, and the shared items whose scores differ."""
    first, second, mode, test = difference.first, difference.second, difference.mode, difference.test
    mine, theirs = first.values(mode), second.values(mode)
    changed = [item for item in mine if item in theirs and mine[item] != theirs[item]]
    records = (_records(first, mode), _records(second, mode))
    return {
        "kind": difference.kind,
        "suite": difference.suite,
        "mode": mode,
        "first": first.label,
        "second": second.label,
        "items": test.items,
        "measure": difference.measure,
        "mean_first": test.mean_first,
        "mean_second": test.mean_second,
        "difference": test.difference,
        "p_value": test.p_value,
        "significant": test.significant,
        "line": difference.line(),
        "changed": len(changed),
        "listed": [
            {
                "id": item,
                "first": mine[item],
                "second": theirs[item],
                "verdicts": [r.verdict if (r := side.get(item)) else "—" for side in records],
                "reasons": [
                    (label, list(r.item.get("reasons") or []) if (r := side.get(item)) else [])
                    for label, side in ((first.label, records[0]), (second.label, records[1]))
                ],
                "records": [
                    (first.label, _record(records[0].get(item))),
                    (second.label, _record(records[1].get(item))),
                ],
            }
            for item in changed[:LISTED]
        ],
    }


def render_compare(reports: Sequence[Compared], found: Sequence[Difference]) -> str:
    env = environment()
    return env.get_template("compare.html.j2").render(
        generator=Markup(GENERATOR),
        sources=[each.label for each in reports],
        tables=_scores(reports),
        item_mean=ITEM_MEAN,
        tests=[_differing(d) for d in found],
        alpha=ALPHA,
        limit=LISTED,
        style=inline(env, "report.css"),
    )
