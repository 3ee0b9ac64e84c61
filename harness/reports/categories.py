"""A report's scores per category, read from its score sheets (`scores`: per mode, each category's
measures), which every kind writes alike: one table that the Markdown report and the page both show,
so they never disagree, and that the page's per-category chart draws."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.reports.tables import table

NONE = "–"
"""A measure a category has no value for (the Markdown reports' blank)."""


@dataclass(frozen=True)
class CategoryRow:
    category: str
    mode: str
    values: tuple[float | None, ...]
    """One per measure of the table, in its order."""


@dataclass(frozen=True)
class CategoryTable:
    measures: tuple[str, ...]
    rows: tuple[CategoryRow, ...]
    """Category by category, each in every mode that scored it (modes side by side)."""


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def category_table(scores: Mapping[str, Any]) -> CategoryTable:
    """Every category of the score sheets, each measure any category has as a column."""
    sheets = {str(mode): sheet.get("categories") or {} for mode, sheet in scores.items() if isinstance(sheet, Mapping)}
    measures = tuple(dict.fromkeys(m for per in sheets.values() for values in per.values() for m in values))
    categories = dict.fromkeys(c for per in sheets.values() for c in per)
    return CategoryTable(
        measures,
        tuple(
            CategoryRow(str(category), mode, tuple(_number(per[category].get(m)) for m in measures))
            for category in categories
            for mode, per in sheets.items()
            if isinstance(per.get(category), Mapping)
        ),
    )


def category_markdown(scores: Mapping[str, Any]) -> list[str]:
    """The table as a Markdown section (none where the sheets have no category)."""
    found = category_table(scores)
    if not found.rows:
        return []
    rows = [[row.category, row.mode, *(NONE if v is None else f"{v:.4g}" for v in row.values)] for row in found.rows]
    align = "|---|---|" + "---:|" * len(found.measures)
    return [
        "## Scores per category",
        "",
        "From the report's score sheets (`scores`), as its page shows them.",
        "",
        *table(["category", "mode", *found.measures], rows, align),
        "",
    ]
