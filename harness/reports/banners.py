"""The warnings a report opens with, read from its envelope's fields: a kind not applicable to the
system (nothing ran) and a partial run. One list for the Markdown report and the HTML page, so both
say the same thing in the same words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.reports.escape import md


@dataclass(frozen=True)
class Banner:
    key: str
    """Names it on the page (`banner-<key>`)."""
    label: str
    text: str
    """Plain text: each medium escapes it its own way."""


def banners(fields: Mapping[str, Any], unit: str) -> list[Banner]:
    """The banners a report's envelope `fields` call for; `unit` names its items (cases, turns)."""
    said = []
    if reason := fields.get("not_applicable"):
        system = fields.get("system")
        name = system.get("name") if isinstance(system, Mapping) else None
        on = f" on system {name!r}" if name else ""
        said.append(Banner("not-applicable", "NOT APPLICABLE", f"{reason} No {unit} ran{on}: nothing was judged."))
    if fields.get("incomplete"):
        reason = fields.get("incomplete_reason")
        said.append(Banner("incomplete", "INCOMPLETE RUN", f"{reason}. Only the {unit} that finished are below."))
    return said


def markdown_banners(said: list[Banner]) -> list[str]:
    """Each banner as a Markdown quote and its blank line."""
    return [line for banner in said for line in (f"> **{banner.label}**: {md(banner.text)}", "")]
