"""`harness leaderboard`: systems under test (rows, each in each of its modes) x suites and datasets
(columns): the public suites ranked in one table of every engine's rows, each cell the suite's own
measures (an overall one, or a category's score) or else the column's main measures (those its
kind's spec declares, which the report carries in its `view`) from the reports' own score sheets,
with each system's published figures beside ours where it publishes any (`published_systems.json`,
with their sources), and a run's verdict under its rules in the notes; then the built-in and other
suites apart, per engine, never ranked. Written as Markdown, JSON, a PNG chart and a page.

A row shows its system as the system declares itself (`system_label`: name and version, an HTTP
service's URL as a detail, the reference pipeline as such); two versions of a system are two rows.

A report from before systems existed is of the reference system (`envelope.system_of`); a kind a
system cannot run is reported not applicable (`n/a`, with the reason), never as a zero. A column
is a suite under one set of rules (the envelope's `rules`: whose definitions made the numbers), and a published
figure sits beside ours only in a column of the same suite and rules: one with no such column is
not listed with the sources, only named as unmatched.
"""

from __future__ import annotations

import hashlib
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
from harness.suites.public import PublicSuite, placement

LABELS = {
    "pass_rate": "pass rate",
    "recall_any@5": "R@5",
    "recall_any@1": "R@1",
    "mrr": "MRR",
    "p50_ms": "p50 ms",
    "passed": "passed",
    "trivially_empty": "trivially empty",
    "ndcg": "nDCG",
    "noise_suppression": "noise suppression",
    "signal_retention": "signal retention",
    "recall_fixed": "recall (fixed tools)",
}


CATEGORY = "category:"
"""A measure that is a category's score in the sheet (Acervo's `category:RESOLVE`), not an overall one."""


def label(measure: str) -> str:
    name = measure.rpartition("/")[2].removeprefix(CATEGORY)
    return LABELS.get(name, name)


def measure_value(sheet: Mapping[str, Any], measure: str) -> float | None:
    """A measure from a score sheet: a category's score (`category:NAME`), else an overall measure."""
    if measure.startswith(CATEGORY):
        category = (sheet.get("categories") or {}).get(measure.removeprefix(CATEGORY)) or {}
        value = category.get("score")
    else:
        value = (sheet.get("overall") or {}).get(measure)
    return None if value is None else float(value)


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
    """A suite under one set of rules: a public suite (known by its files' digests,
    `suites/public.py`) or any other suite, known by its name and the digest of what it read."""

    kind: str
    suite: str
    measures: tuple[str, ...]
    rules: str
    public: PublicSuite | None = None
    content: str = ""
    """A suite that is not public: the digest of its input files (two suites of one name stay apart)."""

    @property
    def key(self) -> str:
        shown = f"{self.suite} · {self.rules}"
        return shown if self.public is not None or not self.content else f"{shown} · {self.content}"

    @property
    def title(self) -> str:
        if self.public is None:
            return f"{self.suite} · {self.rules}"
        level = self.suite.removeprefix(f"{self.public.name}-") if self.suite != self.public.name else ""
        return f"{self.public.title}{f' ({level})' if level else ''} · {self.rules}"


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
    notes: list[str] = field(default_factory=list)
    """What a report's files say of the public suites: a rebuilt file, a changed file, a subset."""

    @property
    def public(self) -> list[Column]:
        """The public suites' columns, ranked."""
        return [c for c in self.columns if c.public is not None]

    @property
    def others(self) -> list[Column]:
        """The built-in suites and any suite not known as public: regression tests, never ranked."""
        return [c for c in self.columns if c.public is None]

    def published_for(self, row: Entry, column: Column) -> Published | None:
        """What the row's system publishes for the column's public suite in the row's mode under the
        column's rules (a hybrid figure is no bm25 one's; a figure under other rules, or beside a
        suite that only shares its name, is no figure)."""
        if column.public is None:
            return None
        wanted = (row.system, column.suite, row.mode, column.rules)
        return next((p for p in self.published if (p.system, p.suite, p.mode, p.rules) == wanted), None)

    def matched(self, figure: Published) -> bool:
        """Whether a public column has the figure's suite and rules (only there can it sit beside ours)."""
        return any((c.suite, c.rules) == (figure.suite, figure.rules) for c in self.public)

    @property
    def listed(self) -> list[Published]:
        """The published figures a column matches, listed with their sources."""
        return [p for p in self.published if self.matched(p)]

    @property
    def unmatched(self) -> list[Published]:
        """The published figures no column matches: named, never set beside another suite or rules."""
        return [p for p in self.published if not self.matched(p)]

    def in_rank_order(self) -> list[tuple[str, Entry]]:
        """Every engine's rows with a public cell, as (engine, row): most public columns first,
        then by the first public column's first measure, highest first."""

        def order(pair: tuple[str, Entry]) -> tuple[int, float]:
            cells = [pair[1].cells[c.key] for c in self.public if c.key in pair[1].cells]
            first = next((v for cell in cells for v in cell.values() if v is not None), -1.0)
            return (-len(cells), -first)

        pairs = [(backend, row) for backend, rows in self.backends.items() for row in rows]
        return sorted((p for p in pairs if any(c.key in p[1].cells for c in self.public)), key=order)


def columns_of(report: Mapping[str, Any], sheet: Mapping[str, Any]) -> list[Column]:
    """The columns a report's numbers belong in: one per public suite it ran whole (a dataset's
    keeps the level it is scored at in its name), else its own suite, known by its content."""
    kind, suite, rules = report["kind"], str(report["suite"]), rules_name(report)
    main = main_measures(report, sheet.get("overall") or {})
    met = placement(report).suites
    if not met:
        return [Column(kind, suite, main, rules, None, _content(report))]
    return [
        Column(
            kind,
            suite if suite.startswith(f"{public.name}-") else public.name,
            tuple(m for m in public.measures if measure_value(sheet, m) is not None) or main,
            rules,
            public,
        )
        for public in met
    ]


def _content(report: Mapping[str, Any]) -> str:
    """A short digest of the files a report read (none: its suite's name is all there is)."""
    digests = sorted(str(each["sha256"]) for each in report["inputs"])
    return hashlib.sha256("".join(digests).encode()).hexdigest()[:8] if digests else ""


def board(reports: Sequence[Compared], published: Sequence[Published]) -> Board:
    """The leaderboard of the reports (a later report of the same system, backend, mode and suite
    replaces an earlier one's cell)."""
    columns: dict[str, Column] = {}
    backends: dict[str, dict[tuple[str, SystemLabel, str], Entry]] = {}
    notes: dict[str, None] = {}
    for each in reports:
        report = each.report
        system, shown = system_of(report), system_label(report)
        backend = report["backend"]["backend"]
        placed = placement(report)
        notes |= dict.fromkeys((*placed.caveats, *placed.notes, *verdict_notes(report, placed.suites)))
        for mode in report["modes"]:
            sheet = report["scores"].get(mode)
            for fresh in columns_of(report, sheet or {}):
                column = columns.setdefault(fresh.key, fresh)
                _fill(each, column, backends.setdefault(backend, {}), (system, shown, mode), sheet)
    return Board(
        list(columns.values()),
        {name: list(rows.values()) for name, rows in sorted(backends.items())},
        list(published),
        [each.label for each in reports],
        list(notes),
    )


def verdict_notes(report: Mapping[str, Any], met: Sequence[PublicSuite]) -> list[str]:
    """Per mode, the verdict a run of a public suite carries in its summary and a cell of numbers
    cannot: against a baseline (`baseline`: its overall, the delta, whether it regressed, as a
    nano-brain task run holds it) or an overall grade (`grade`, `grades`, as a Mnemonic lifecycle
    run holds it), each under the report's rules."""
    if not met:
        return []
    head = f"{met[0].title}: {system_label(report).text}"
    engine, rules = report["backend"]["backend"], rules_name(report)
    notes = []
    summary = report.get("summary")
    for mode, entry in (summary if isinstance(summary, Mapping) else {}).items():
        if not isinstance(entry, Mapping):
            continue
        if isinstance(base := entry.get("baseline"), Mapping):
            verdict = "a regression" if base["regression"] else "no regression"
            notes.append(
                f"{head} {mode} on {engine}: {entry['overall']:.3f} against the baseline's {base['overall']:.3f} "
                f"({base['delta']:+.3f}), {verdict} under the {rules} rules"
            )
        if entry.get("grade") is not None and isinstance(entry.get("grades"), Mapping):
            grades = ", ".join(f"{label(name)} {grade}" for name, grade in entry["grades"].items())
            notes.append(
                f"{head} {mode} on {engine}: overall grade {entry['grade']} under the {rules} rules ({grades})"
            )
    return notes


def _fill(
    each: Compared,
    column: Column,
    rows: dict[tuple[str, SystemLabel, str], Entry],
    key: tuple[str, SystemLabel, str],
    sheet: Mapping[str, Any] | None,
) -> None:
    """The row's cell of the column from one report in one mode."""
    report = each.report
    system, shown, mode = key
    row = rows.setdefault(key, Entry(system, mode, shown))
    row.sources[column.key] = each.path.name
    if each.edited:
        row.edited[column.key] = each.edited
    else:
        row.edited.pop(column.key, None)
    if report.get("not_applicable"):
        row.not_applicable[column.key] = str(report["not_applicable"])
        row.cells.pop(column.key, None)
    elif sheet is not None:
        row.cells[column.key] = {m: measure_value(sheet, m) for m in column.measures}
        row.not_applicable.pop(column.key, None)


COUNTS = frozenset({"items", "passed", "active", "structural", "trivially_empty"})
"""Measures that count items (PrecisionMemBench's passes and pass types): shown as whole numbers."""


def _number(value: float | None, measure: str = "") -> str:
    if value is None:
        return "–"
    return f"{value:.0f}" if measure.rpartition("/")[2] in COUNTS else f"{value:.3f}"


def cell_text(board: Board, row: Entry, column: Column) -> str:
    """Per measure `ours / published` where the system publishes the figure for the column's suite
    and rules, else `ours` (marked where its report was edited); measures apart by ` · `."""
    if column.key in row.not_applicable:
        return "n/a"
    ours = row.cells.get(column.key)
    figure = board.published_for(row, column)
    theirs = dict(figure.measures) if figure is not None else {}
    parts = [
        _number(None if ours is None else ours.get(m), m) + (f" / {_number(theirs[m], m)}" if m in theirs else "")
        for m in column.measures
    ]
    text = " · ".join(parts) if ours is not None or theirs else "–"
    return text + (f" ({EDITED_MARK})" if column.key in row.edited else "")


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
    if board.public:
        lines += _public_section(board)
    if board.others:
        lines += _others_section(board)
    if board.listed:
        lines += ["## Published figures", "", markdown_table(PUBLISHED_COLUMNS, published_rows(board)), ""]
    if (unmatched := unmatched_line(board)) is not None:
        lines += [md(unmatched), ""]
    return "\n".join(lines) + "\n"


def _measures_line(columns: Sequence[Column]) -> str:
    return "; ".join(f"{md(c.title)}: {' · '.join(map(label, c.measures))}" for c in columns)


def _public_section(board: Board) -> list[str]:
    """The public suites, one column per suite and rules, every engine's rows in one table, ranked."""
    rows = board.in_rank_order()
    lines = [
        "## Public suites",
        "",
        "Each column is a public suite, known by the sha256 of its published files whatever the folder "
        "it was loaded from, under the rules its numbers were made under (docs/peer-rules.md); each cell "
        "is the column's measures (" + _measures_line(board.public) + "), `ours / published` where the "
        "system publishes that figure for the suite under those rules; `n/a`: a kind the system cannot run. "
        "Rows: most public columns first, then the first column's first measure.",
        "",
    ]
    header = ["system", "mode", "engine", *(c.title for c in board.public)]
    table = [
        [row.label.text, row.mode, backend, *(cell_text(board, row, c) for c in board.public)] for backend, row in rows
    ]
    lines += [markdown_table(header, table), ""]
    suites = {c.public.name: c.public for c in board.public if c.public is not None}
    lines += [
        f"- {md(s.title)}: {md(s.source)}" + (f" at {md_code(s.commit[:12])}" if s.commit else "")
        for s in suites.values()
    ]
    lines += [f"- {md(note)}" for note in board.notes]
    return [*lines, ""]


def _others_section(board: Board) -> list[str]:
    """The built-in suites and any suite not known as public, per engine: regression tests, not ranked."""
    lines = [
        "## Built-in and other suites (regression tests, not ranked)",
        "",
        "Each column is a suite by its name and, where two could share it, the digest of its files, under "
        "the rules its numbers were made under; each cell is its kind's main measures ("
        + _measures_line(board.others)
        + "); `n/a`: a kind the system cannot run.",
        "",
    ]
    for backend, rows in board.backends.items():
        shown = [row for row in rows if any(c.key in row.cells or c.key in row.not_applicable for c in board.others)]
        if not shown:
            continue
        header = ["system", "mode", *(c.title for c in board.others)]
        table = [[row.label.text, row.mode, *(cell_text(board, row, c) for c in board.others)] for row in shown]
        lines += [f"### {md(backend)}", "", markdown_table(header, table), ""]
        lines += [
            f"- {md(row.label.text)} {md(row.mode)} {md(c.title)}: not applicable: {md(row.not_applicable[c.key])}"
            for row in shown
            for c in board.others
            if c.key in row.not_applicable
        ]
        lines += [""] if any(row.not_applicable for row in shown) else []
    return lines


def leaderboard_json(board: Board) -> dict[str, Any]:
    return {
        "reports": board.reports,
        "columns": [
            {
                "kind": c.kind,
                "suite": c.suite,
                "rules": c.rules,
                "key": c.key,
                "measures": list(c.measures),
                "public": None
                if c.public is None
                else {
                    "name": c.public.name,
                    "title": c.public.title,
                    "source": c.public.source,
                    "commit": c.public.commit,
                },
            }
            for c in board.columns
        ],
        "notes": board.notes,
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
