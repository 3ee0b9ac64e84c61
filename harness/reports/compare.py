"""Side-by-side comparison of run reports: one row per backend and mode."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from harness.errors import HarnessError
from harness.reports.run_report import SCORECARD_COLUMNS, markdown_table, scorecard_rows
from harness.reports.summary import ModeSummary

_SUMMARIES = TypeAdapter(list[ModeSummary])


_TIMESTAMPED = re.compile(r"run-.+-(\d{8}T\d{6}Z)(?:-(\d+))?\.json")
"""A run report as the writer names it (`-2`, `-3`: later runs of the same second); not a `-latest` copy."""


def default_reports(out_dir: Path) -> list[Path]:
    """The newest complete run report of each backend x mode in the folder, oldest first.

    Not only the `-latest` copies: a run of one mode replaces its backend's `-latest`, and the
    other modes' newest rows are in earlier reports. Incomplete runs and shards are left out.
    """
    runs = sorted(
        (named.group(1), int(named.group(2) or 1), path)
        for path in out_dir.glob("run-*.json")
        if (named := _TIMESTAMPED.fullmatch(path.name)) is not None
    )
    newest: dict[tuple[str, str], Path] = {}
    for *_, path in runs:
        data = _read(path)
        if isinstance(data, dict) and (data.get("incomplete") or _settings(data).get("shard") is not None):
            continue
        for summary in _summaries(path, data):
            newest[(summary.backend, summary.mode)] = path
    chosen = set(newest.values())
    return [path for *_, path in runs if path in chosen]


def _settings(data: dict[str, Any]) -> dict[str, Any]:
    meta = data.get("meta")
    settings = meta.get("settings") if isinstance(meta, dict) else None
    return settings if isinstance(settings, dict) else {}


def load_summaries(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Summary rows of every report; a later report replaces an earlier one's (backend, mode)."""
    if not paths:
        raise HarnessError("no run reports to compare: run `harness run` first or name report files")
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for path in paths:
        for summary in _summaries(path, _read(path)):
            rows[(summary.backend, summary.mode)] = summary.to_json()
    return [rows[key] for key in sorted(rows)]


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HarnessError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{path}: not a harness run report ({exc.__class__.__name__})") from None


def _summaries(path: Path, data: Any) -> list[ModeSummary]:
    try:
        return _SUMMARIES.validate_python(data["summary"])
    except (ValueError, KeyError, TypeError) as exc:  # ValidationError is a ValueError
        raise HarnessError(f"{path}: not a harness run report ({exc.__class__.__name__})") from None


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
