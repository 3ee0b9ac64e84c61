"""What a kind's spec declares for readers of its reports, written by the runner (and merge) into
the report's envelope as `view`, so the page and the leaderboard read data, never a table of kind
names: where the body lists its items, each item as a row of the page (id, category, title,
whether it failed and why, by the kind's own `failures`), what failing means in words, and its main
measures. Nothing in it varies between two runs of the same items (no timings), so a merged
report's view is the unsharded run's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.evaluation.kind import CaseKind, Itemized, KindSpec, R
from harness.reports.document import Report, RowText


def view(spec: KindSpec[Any, R], kind: CaseKind[R], report: Report) -> dict[str, Any]:
    """The `view` of a kind's report: one row per record of the body's `results_key` list, in its order."""
    records: list[Mapping[str, Any]] = list(report.data.get(spec.results_key) or [])
    judged = kind if isinstance(kind, Itemized) else None
    rows = []
    for record in records:
        result = spec.result(record)
        text = spec.row(result) if spec.row is not None else RowText(result.item_id, "", "")
        reasons = judged.failures(result) if judged is not None else []
        rows.append(
            {"id": text.id, "category": text.category, "title": text.title, "failed": bool(reasons), "reasons": reasons}
        )
    return {
        "items": spec.results_key,
        "unit": kind.unit,
        "rule": spec.rule,
        "main": list(spec.main),
        "rows": rows,
    }
