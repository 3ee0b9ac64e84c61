"""`harness report render|open|diff`: a report's page (or two reports' differences) from JSON files,
beside them or where asked; a file that is not a page of ours is never overwritten."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.files import atomic_write
from harness.reports.document import REQUIRED
from harness.reports.html.diff import render_diff
from harness.reports.html.page import GENERATOR, render_html
from harness.reports.html.rows import kind_of


def read_report(path: Path) -> dict[str, Any]:
    """A run report's JSON document: one with the envelope, or an old one whose items the page knows."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HarnessError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{path}: not a harness run report ({exc.__class__.__name__})") from None
    if not isinstance(document, dict) or not (all(f in document for f in REQUIRED) or kind_of(document)):
        raise HarnessError(f"{path}: not a harness run report (no envelope, no items of a known kind)")
    return document


def is_page(path: Path) -> bool:
    """Whether `path` is a page this harness wrote (its generator tag within the first bytes)."""
    with path.open("rb") as handle:
        return GENERATOR.encode() in handle.read(2048)


def write_page(target: Path, html: str) -> bool:
    """Write a page to `target`, replacing only a page of ours; returns whether one was replaced."""
    replaced = target.exists()
    if replaced and (target.is_dir() or not is_page(target)):
        raise HarnessError(f"{target}: exists and is not a harness report page; name another with --out")
    try:
        atomic_write(target, html)
    except OSError as exc:
        raise HarnessError(f"{target}: cannot write the page: {exc.strerror or exc}") from None
    return replaced


def render_file(report: Path, out: Path | None = None) -> tuple[Path, bool]:
    """Write `report`'s page to `out` (default: beside it, `.html`); returns the page and whether one was replaced."""
    target = out or report.with_suffix(".html")
    return target, write_page(target, render_html(read_report(report)))


def diff_file(base: Path, new: Path, out: Path | None = None) -> tuple[Path, bool]:
    """Write the page of what changed from `base` to `new` (default: beside `new`, `<new>-vs-<base>.html`)."""
    target = out or new.with_name(f"{new.stem}-vs-{base.stem}.html")
    html = render_diff(read_report(base), read_report(new), base.name, new.name)
    return target, write_page(target, html)
