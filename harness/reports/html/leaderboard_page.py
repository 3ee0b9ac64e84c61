"""The leaderboard as one self-contained page: a table per backend (systems in each mode x suites
and datasets, ours with the system's published figures beside them), the chart inline, and the
published figures a column matches with their sources (the others only named). Nothing is fetched when it opens."""

from __future__ import annotations

from markupsafe import Markup

from harness.reports.html.page import GENERATOR, environment, inline
from harness.reports.leaderboard import PUBLISHED_COLUMNS, Board, label, published_rows, unmatched_line


def render_leaderboard(board: Board, svg: str | None) -> str:
    env = environment()
    tables = {
        backend: [
            {
                "system": row.system,
                "label": row.label,
                "mode": row.mode,
                "cells": [
                    {
                        "suite": c.key,
                        "not_applicable": row.not_applicable.get(c.key),
                        "ours": [(row.cells.get(c.key) or {}).get(m) for m in c.measures]
                        if c.key in row.cells
                        else None,
                        "published": [p.measures.get(m) for m in c.measures]
                        if (p := board.published_for(row, c)) is not None
                        else None,
                        "report": row.sources.get(c.key),
                        "edited": row.edited.get(c.key),
                    }
                    for c in board.columns
                ],
            }
            for row in rows
        ]
        for backend, rows in board.backends.items()
    }
    return env.get_template("leaderboard.html.j2").render(
        generator=Markup(GENERATOR),
        sources=board.reports,
        columns=[(c.key, " / ".join(label(m) for m in c.measures)) for c in board.columns],
        tables=tables,
        published_columns=PUBLISHED_COLUMNS,
        published=published_rows(board),
        unmatched=unmatched_line(board),
        chart=Markup(svg) if svg else None,
        style=inline(env, "report.css"),
    )
