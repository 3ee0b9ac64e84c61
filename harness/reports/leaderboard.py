"""`harness leaderboard`: systems under test (rows, each in each of its modes) x suites and datasets
(columns), one table per backend, each cell the column's main measures (those its kind's spec
declares, which the report carries in its `view`) from the reports' own score sheets, and each system's published figures beside ours where it publishes any
(`published_systems.json`, with their sources). Written as Markdown, JSON, a PNG chart and a page.

A row shows its system as the system declares itself (`system_label`: name and version, an HTTP
service's URL as a detail, the reference pipeline as such); two versions of a system are two rows.

A report from before systems existed is of the reference system (`envelope.system_of`); a kind a
system cannot run is reported not applicable (`n/a`, with the reason), never as a zero. A column
is a suite under one set of rules (the envelope's `rules`: whose definitions made the numbers), and a published
figure sits beside ours only in a column of the same suite and rules: one with no such column is
not listed with the sources, only named as unmatched.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

from harness.reports.compare import Compared, main_measures
from harness.reports.document import rules_name, system_of
from harness.reports.escape import md, md_code
from harness.reports.reader import EDITED_MARK
from harness.reports.system_label import SystemLabel, system_label
from harness.reports.tables import markdown_table

LABELS = {"pass_rate": "pass rate", "recall_any@5": "R@5", "recall_any@1": "R@1", "mrr": "MRR", "p50_ms": "p50 ms"}


def label(measure: str) -> str:
    return LABELS.get(measure.rpartition("/")[2], measure)


@dataclass(frozen=True)
class Published:
    """A figure set a system publishes for one suite or dataset."""

    system: str
    kind: str
    suite: str
    mode: str
    backend: str
    measures: Mapping[str, float]
    setup: str
    source: str
    rules: str
    """Whose definitions made the figure (the names of our reports' `rules`)."""


def published_figures() -> list[Published]:
    """The committed published figures (`harness/reports/published_systems.json`)."""
    data = json.loads(files("harness.reports").joinpath("published_systems.json").read_text(encoding="utf-8"))
    return [Published(**figure) for figure in data["figures"]]


@dataclass(frozen=True)
class Column:
    kind: str
    suite: str
    measures: tuple[str, ...]
    rules: str

    @property
    def key(self) -> str:
        return f"{self.suite} · {self.rules}"

    @property
    def title(self) -> str:
        return self.key


@dataclass
class Entry:
    """One system in one mode on one backend: per column, its measures, or why it is not applicable."""

    system: str
    """What reports are keyed by (`--system`'s name), which published figures name."""
    mode: str
    label: SystemLabel
    """How the system declares itself."""
    cells: dict[str, dict[str, float | None]] = field(default_factory=dict)
    not_applicable: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    edited: dict[str, str] = field(default_factory=dict)
    """Per column whose report was read with `--allow-edited` and its checksum does not vouch for: why."""


@dataclass(frozen=True)
class Board:
    columns: list[Column]
    backends: dict[str, list[Entry]]
    published: list[Published]
    reports: list[str]

    def published_for(self, row: Entry, column: Column) -> Published | None:
        """What the row's system publishes for the column's suite in the row's mode under the
        column's rules (a hybrid figure is no bm25 one's; a figure under other rules is no figure)."""
        wanted = (row.system, column.suite, row.mode, column.rules)
        return next((p for p in self.published if (p.system, p.suite, p.mode, p.rules) == wanted), None)

    def matched(self, figure: Published) -> bool:
        """Whether a column has the figure's suite and rules (only there can it sit beside ours)."""
        return any((c.suite, c.rules) == (figure.suite, figure.rules) for c in self.columns)

    @property
    def listed(self) -> list[Published]:
        """The published figures a column matches, listed with their sources."""
        return [p for p in self.published if self.matched(p)]

    @property
    def unmatched(self) -> list[Published]:
        """The published figures no column matches: named, never set beside another suite or rules."""
        return [p for p in self.published if not self.matched(p)]


def board(reports: Sequence[Compared], published: Sequence[Published]) -> Board:
    """The leaderboard of the reports (a later report of the same system, backend, mode and suite
    replaces an earlier one's cell)."""
    columns: dict[str, Column] = {}
    backends: dict[str, dict[tuple[str, SystemLabel, str], Entry]] = {}
    for each in reports:
        report = each.report
        kind, suite, system, shown = report["kind"], str(report["suite"]), system_of(report), system_label(report)
        backend, rules = report["backend"]["backend"], rules_name(report)
        for mode in report["modes"]:
            sheet = report["scores"].get(mode)
            overall = (sheet or {}).get("overall") or {}
            fresh = Column(kind, suite, main_measures(report, overall), rules)
            column = columns.setdefault(fresh.key, fresh)
            row = backends.setdefault(backend, {}).setdefault((system, shown, mode), Entry(system, mode, shown))
            row.sources[column.key] = each.path.name
            if each.edited:
                row.edited[column.key] = each.edited
            else:
                row.edited.pop(column.key, None)
            if report.get("not_applicable"):
                row.not_applicable[column.key] = str(report["not_applicable"])
                row.cells.pop(column.key, None)
            elif sheet is not None:
                row.cells[column.key] = {m: overall.get(m) for m in column.measures}
                row.not_applicable.pop(column.key, None)
    return Board(
        list(columns.values()),
        {name: list(rows.values()) for name, rows in sorted(backends.items())},
        list(published),
        [each.label for each in reports],
    )


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def cell_text(board: Board, row: Entry, column: Column) -> str:
    """`ours` per measure (marked where its report was edited), and the system's published figure
    beside it where there is one under the same rules."""
    if column.key in row.not_applicable:
        return "n/a"
    ours = row.cells.get(column.key)
    text = " / ".join(_number(ours.get(m)) for m in column.measures) if ours is not None else "–"
    text += f" ({EDITED_MARK})" if column.key in row.edited else ""
    figure = board.published_for(row, column)
    if figure is not None and any(m in figure.measures for m in column.measures):
        text += " (published " + " / ".join(_number(figure.measures.get(m)) for m in column.measures) + ")"
    return text


def published_rows(board: Board) -> list[list[str]]:
    """The published figures a column matches, with their sources."""
    return [
        [
            p.system,
            p.suite,
            p.mode,
            p.backend,
            p.rules,
            ", ".join(f"{label(m)} {v:g}" for m, v in p.measures.items()),
            p.setup,
            p.source,
        ]
        for p in board.listed
    ]


def unmatched_line(board: Board) -> str | None:
    """One line naming the published figures no column matches (None: there are none)."""
    if not board.unmatched:
        return None
    named = "; ".join(f"{p.system} {p.mode} on {p.suite} under {p.rules} rules" for p in board.unmatched)
    return f"Published figures with no column of their suite and rules here, so not shown: {named}."


PUBLISHED_COLUMNS = ("system", "suite", "mode", "backend", "rules", "published", "setup", "source")


def leaderboard_markdown(board: Board) -> str:
    lines = ["# Leaderboard", "", "From: " + ", ".join(map(md_code, board.reports)), ""]
    lines += [
        "Each column is a suite · the rules its numbers were made under (whose definitions; "
        "docs/peer-rules.md); each cell is the column's main measure ("
        + "; ".join(f"{md(c.key)}: {' / '.join(map(label, c.measures))}" for c in board.columns)
        + "); a system's published figures follow in parentheses where it publishes any under the column's "
        "rules; `n/a`: a kind the system cannot run.",
        "",
    ]
    for backend, rows in board.backends.items():
        columns = ["system", "mode", *(c.title for c in board.columns)]
        table = [[row.label.text, row.mode, *(cell_text(board, row, c) for c in board.columns)] for row in rows]
        lines += [f"## {md(backend)}", "", markdown_table(columns, table), ""]
        for row in rows:
            lines += [
                f"- {md(row.label.text)} {md(row.mode)} {md(suite)}: not applicable: {md(why)}"
                for suite, why in row.not_applicable.items()
            ]
        lines += [""] if any(row.not_applicable for row in rows) else []
    if board.listed:
        lines += ["## Published figures", "", markdown_table(PUBLISHED_COLUMNS, published_rows(board)), ""]
    if (unmatched := unmatched_line(board)) is not None:
        lines += [md(unmatched), ""]
    return "\n".join(lines) + "\n"


def leaderboard_json(board: Board) -> dict[str, Any]:
    return {
        "reports": board.reports,
        "columns": [
            {"kind": c.kind, "suite": c.suite, "rules": c.rules, "measures": list(c.measures)} for c in board.columns
        ],
        "backends": {
            backend: [
                {
                    "system": row.system,
                    "declared": {"name": row.label.name, "version": row.label.version, "detail": row.label.detail},
                    "mode": row.mode,
                    "cells": row.cells,
                    "not_applicable": row.not_applicable,
                    "published": {
                        c.key: dict(p.measures) for c in board.columns if (p := board.published_for(row, c)) is not None
                    },
                    "reports": row.sources,
                    "edited": row.edited,
                }
                for row in rows
            ]
            for backend, rows in board.backends.items()
        },
        "published": [_figure_json(p) for p in board.listed],
        "unmatched_published": [_figure_json(p) for p in board.unmatched],
    }


def _figure_json(p: Published) -> dict[str, Any]:
    return {
        "system": p.system,
        "kind": p.kind,
        "suite": p.suite,
        "mode": p.mode,
        "backend": p.backend,
        "rules": p.rules,
        "measures": dict(p.measures),
        "setup": p.setup,
        "source": p.source,
    }
