"""Side-by-side comparison of run reports: one row per backend and mode."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from harness.errors import HarnessError
from harness.reports.run_report import SCORECARD_COLUMNS, markdown_table, scorecard_rows
from harness.reports.summary import ModeSummary

_SUMMARIES = TypeAdapter(list[ModeSummary])


def default_reports(out_dir: Path) -> list[Path]:
    """The latest run report of each backend combination in the output folder."""
    return sorted(out_dir.glob("run-*-latest.json"))


def load_summaries(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Summary rows of every report; a later report replaces an earlier one's (backend, mode)."""
    if not paths:
        raise HarnessError("no run reports to compare: run `harness run` first or name report files")
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for path in paths:
        try:
            summaries = _SUMMARIES.validate_python(json.loads(path.read_text(encoding="utf-8"))["summary"])
        except FileNotFoundError:
            raise HarnessError(f"{path}: no such file") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:  # ValidationError is a ValueError
            raise HarnessError(f"{path}: not a harness run report ({exc.__class__.__name__})") from None
        for summary in summaries:
            rows[(summary.backend, summary.mode)] = summary.to_json()
    return [rows[key] for key in sorted(rows)]


def comparison_markdown(summaries: Sequence[dict[str, Any]], sources: Sequence[Path]) -> str:
    return "\n".join(
        [
            "# Backend comparison",
            "",
            "From: " + ", ".join(f"`{p.name}`" for p in sources),
            "",
            markdown_table(SCORECARD_COLUMNS, scorecard_rows(summaries)),
            "",
        ]
    )
