"""Markdown table rows, one way for every report: a cell never breaks its table (a `|` in a task
id or an error message would add a column, a newline would end the row)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.reports.escape import md


def cell(value: object) -> str:
    """`value` as one table cell: escaped as any text the report did not write (`md`: `|` and
    backslashes too), line breaks as `<br>`."""
    text = str(value).replace("\r\n", "\n").replace("\r", "\n")
    return "<br>".join(md(part.strip()) for part in text.split("\n"))


def row(values: Sequence[object]) -> str:
    """One table row; every value goes through `cell`."""
    return "| " + " | ".join(cell(v) for v in values) + " |"


def table(header: Sequence[object], rows: Sequence[Sequence[object]], align: str | None = None) -> list[str]:
    """Header, separator (`align`: one `---` or `---:` per column; default all `---`) and rows."""
    separator = align or "|" + "---|" * len(header)
    return [row(header), separator, *(row(r) for r in rows)]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return "\n".join(table(header, rows))
