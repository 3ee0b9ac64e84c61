"""Every kind's Markdown report and page show the same scores per category (issue 42): each
category of each mode's score sheet a row, each measure a column, read back from the files a run
wrote and compared with the report's own `scores`."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from .pages import FAILED

KINDS = sorted(FAILED)
Cells = dict[tuple[str, str], dict[str, str]]


def from_scores(scores: dict[str, Any]) -> Cells:
    """(category, mode) -> measure -> value as 4 significant digits: what the report's sheets hold."""
    return {
        (category, mode): {name: f"{value:.4g}" for name, value in values.items() if value is not None}
        for mode, sheet in scores.items()
        for category, values in sheet["categories"].items()
    }


def _cells(header: list[str], rows: list[list[str]], blank: str) -> Cells:
    assert header[:2] == ["category", "mode"]
    return {
        (row[0], row[1]): {name: value for name, value in zip(header[2:], row[2:], strict=True) if value != blank}
        for row in rows
    }


def from_markdown(markdown: str) -> Cells:
    section = markdown.split("\n## Scores per category\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    unescape = lambda line: [re.sub(r"\\(.)", r"\1", c.strip()) for c in line.strip("|").split(" | ")]  # noqa: E731
    return _cells(unescape(lines[0]), [unescape(line) for line in lines[2:]], "–")


def from_page(page: str) -> Cells:
    section = page.split('<section id="categories">', 1)[1].split("</section>", 1)[0]
    header = [html.unescape(h) for h in re.findall(r"<th>(.*?)</th>", section)]
    rows = [
        [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr)]
        for tr in re.findall(r"<tr>(.*?)</tr>", section)
    ]
    return _cells(header, [row for row in rows if row], "—")


@pytest.mark.parametrize("kind", KINDS)
def test_the_markdown_and_the_page_show_the_scores_per_category(report_of_kind: dict[str, Path], kind: str) -> None:
    report = json.loads(report_of_kind[kind].read_text())
    expected = from_scores(report["scores"])
    assert expected, f"the {kind} run scored no category"
    assert from_markdown(report_of_kind[kind].with_suffix(".md").read_text()) == expected
    assert from_page(report_of_kind[kind].with_suffix(".html").read_text()) == expected
