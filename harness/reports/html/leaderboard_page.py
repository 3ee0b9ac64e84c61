"""The leaderboard as one self-contained page showing what its Markdown and JSON show: the public
suites ranked in one table (every engine's rows, `ours / published` in one cell), then the built-in
and other suites apart, per engine and never ranked, the chart inline, and the published figures a
column matches with their sources (the others only named). Nothing is fetched when it opens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from harness.reports.html.page import GENERATOR, environment, inline
from harness.reports.leaderboard import (
    PUBLISHED_COLUMNS,
    Board,
    Column,
    Entry,
    cell_text,
    label,
    published_rows,
    unmatched_line,
)


def _cells(board: Board, row: Entry, columns: Sequence[Column]) -> list[dict[str, Any]]:
    """Each column's cell as the Markdown writes it, with the report it came from and why it is n/a."""
    return [
        {
            "suite": c.key,
            "text": cell_text(board, row, c),
            "not_applicable": row.not_applicable.get(c.key),
            "published": board.published_for(row, c) is not None,
            "report": row.sources.get(c.key),
            "edited": row.edited.get(c.key),
        }
        for c in columns
    ]


def _heads(columns: Sequence[Column]) -> list[tuple[str, str, str]]:
    return [(c.key, c.title, " · ".join(label(m) for m in c.measures)) for c in columns]


def render_leaderboard(board: Board, svg: str | None) -> str:
    env = environment()
    public = [
        {
            "backend": backend,
            "system": row.system,
            "label": row.label,
            "mode": row.mode,
            "cells": _cells(board, row, board.public),
        }
        for backend, row in board.in_rank_order()
    ]
    others = {
        backend: [
            {"system": row.system, "label": row.label, "mode": row.mode, "cells": _cells(board, row, board.others)}
            for row in rows
            if any(c.key in row.cells or c.key in row.not_applicable for c in board.others)
        ]
        for backend, rows in board.backends.items()
    }
    suites = {c.public.name: c.public for c in board.public if c.public is not None}
    return env.get_template("leaderboard.html.j2").render(
        generator=Markup(GENERATOR),
        sources=board.reports,
        public_columns=_heads(board.public),
        public_rows=public,
        suites=list(suites.values()),
        notes=board.notes,
        other_columns=_heads(board.others),
        others={backend: rows for backend, rows in others.items() if rows},
        published_columns=PUBLISHED_COLUMNS,
        published=published_rows(board),
        unmatched=unmatched_line(board),
        chart=Markup(svg) if svg else None,
        style=inline(env, "report.css"),
    )
