"""`harness report render|open|diff`: a report's page (or two reports' differences) from JSON files,
beside them or where asked; a file that is not a page of ours is never overwritten."""

from __future__ import annotations

from pathlib import Path

from harness.errors import HarnessError
from harness.files import atomic_write, check_output
from harness.reports.html.diff import render_diff
from harness.reports.html.page import GENERATOR, render_html
from harness.reports.html.rows import kind_of
from harness.reports.reader import EDITED_MARK, NotAReport, Reader, ReadReport, has_envelope, parse


def read_report(reader: Reader, path: Path) -> ReadReport:
    """A run report (`reader.read`), or an old one from before the envelope whose items the page
    knows (it has no checksum to verify: the page shows it as it is)."""
    document = parse(path, reader.max_bytes)
    if has_envelope(document):
        return reader.checked(path, document)
    if not isinstance(document, dict) or not kind_of(document):
        raise NotAReport(f"{path}: not a harness run report (no envelope, no items of a known kind)")
    return ReadReport(path, document)


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


def render_file(reader: Reader, report: Path, out: Path | None = None) -> tuple[Path, bool]:
    """Write `report`'s page to `out` (default: beside it, `.html`); returns the page and whether one was replaced."""
    target = out or report.with_suffix(".html")
    check_output(target, "--out" if out else "the page")
    read = read_report(reader, report)
    return target, write_page(target, render_html(read.document, read.edited))


def diff_file(reader: Reader, base: Path, new: Path, out: Path | None = None) -> tuple[Path, bool]:
    """Write the page of what changed from `base` to `new` (default: beside `new`, `<new>-vs-<base>.html`);
    a report read with `--allow-edited` whose checksum does not vouch for it is named with its mark."""
    target = out or new.with_name(f"{new.stem}-vs-{base.stem}.html")
    check_output(target, "--out" if out else "the page")
    first, second = read_report(reader, base), read_report(reader, new)
    html = render_diff(first.document, second.document, _named(first), _named(second))
    return target, write_page(target, html)


def _named(read: ReadReport) -> str:
    return read.path.name + (f" {EDITED_MARK}" if read.edited else "")
