"""Warning lines shared by the Markdown reports, so every report flags a partial run alike."""

from __future__ import annotations

from typing import Any

from harness.reports.escape import md


def incomplete_banner(report: dict[str, Any], finished: str) -> list[str]:
    """The INCOMPLETE RUN quote and its blank line, or nothing; `finished` names what the report lists."""
    if not report.get("incomplete"):
        return []
    return [
        f"> **INCOMPLETE RUN**: {md(report['incomplete_reason'])}. Only the {finished} that finished are below.",
        "",
    ]
