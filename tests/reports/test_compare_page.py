"""`harness compare` writes a self-contained page beside its Markdown (issue 22): every compared
report x mode with its scores, the paired test the compare table prints, and the items two runs
differ on, each opening to both records; read as a file and opened in headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.reports.document import sealed

from .browser import Browser
from .pages import harness

Compared = tuple[Path, dict[str, Any], list[str]]
"""The compare page, the changed belief report, and the ids of its items changed."""

FLIPPED = "relevant: expected exactly [m-ent-postgres], got [] (a reason written by this test)"


def _worse(report: dict[str, Any], flips: int) -> tuple[dict[str, Any], list[str]]:
    """The belief report with its first `flips` passed static cases failed, in the record and the score sheet."""
    worse = json.loads(json.dumps(report))
    flipped = []
    for case in worse["cases"]:
        if len(flipped) < flips and case["passed"] and case["turn"] is None:
            case |= {"passed": False, "reasons": [FLIPPED]}
            worse["scores"][case["mode"]]["cases"][case["case_id"]]["passed"] = False
            flipped.append(case["case_id"])
    return worse, flipped


@pytest.fixture(scope="module")
def compared(report_of_kind: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Compared:
    root = tmp_path_factory.mktemp("compare-page")
    base = json.loads(report_of_kind["beliefs"].read_text())
    worse, flipped = _worse(base, 3)
    changed = root / "run-embedded-changed.json"
    changed.write_text(json.dumps(sealed(worse)))  # as a run that failed them would have
    reports = [report_of_kind["beliefs"], changed, report_of_kind["haystack"], report_of_kind["lifecycle"]]
    assert harness(root, "compare", *map(str, reports), "--out", str(root / "out")) == 0
    (markdown,) = (root / "out").glob("compare-2*.md")
    page = markdown.with_suffix(".html")
    assert page.is_file(), "the page is written beside the Markdown, under its name"
    assert (root / "out" / "compare-latest.html").read_text() == page.read_text()
    return page, worse, flipped


def test_the_page_lists_every_report_and_mode_with_its_scores(
    compared: Compared, report_of_kind: dict[str, Path]
) -> None:
    html = compared[0].read_text()
    assert re.findall(r"""(?:src|href)\s*=\s*["'](?!#)""", html) == []
    for kind in ("beliefs", "haystack", "lifecycle"):
        report = json.loads(report_of_kind[kind].read_text())
        table = re.search(rf'<table class="scorecard" data-kind="{kind}">(.*?)</table>', html, re.S)
        assert table, kind
        rows = re.findall(r'<tr class="score">(.*?)</tr>', table.group(1), re.S)
        assert len(rows) == len(report["scores"]) * (2 if kind == "beliefs" else 1)
        first = next(iter(report["scores"].values()))["overall"]
        name, value = next(iter(first.items()))
        assert f"<th>{name}</th>" in table.group(1)
        assert f'<td class="num">{value:.4g}</td>' in rows[0]


def test_the_page_has_the_paired_test_and_only_the_items_that_differ(compared: Compared) -> None:
    page, worse, flipped = compared
    html = page.read_text()
    tests = re.findall(r'<tr class="test" data-index="\d+">(.*?)</tr>', html, re.S)
    assert len(tests) == 1, "the two belief reports share items; no other pair does"
    cells = re.findall(r"<td[^>]*>(.*?)</td>", tests[0], re.S)
    shared = len(next(iter(worse["scores"].values()))["cases"])
    assert cells[2] == "bm25"
    assert cells[5] == str(shared)
    assert cells[-2] in ("significant", "not significant")
    assert re.sub("<[^>]+>", "", cells[-1]) == str(len(flipped))
    listed = re.findall(r'<tr class="differs" data-id="([^"]+)">', html)
    assert listed == flipped


def test_the_compare_page_in_a_browser(
    compared: Compared,
    browser: Browser,
    artifacts: Path,
) -> None:
    page, _, flipped = compared
    browser.events.clear()
    browser.open(page)
    listed = browser.evaluate("[...document.querySelectorAll('tr.differs')].map((tr) => tr.dataset.id)")
    assert listed == flipped
    browser.evaluate("document.querySelector('tr.differs details').open = true")
    opened = browser.evaluate("document.querySelector('tr.differs').innerText")
    assert FLIPPED in opened
    assert f'"case_id": "{flipped[0]}"' in opened
    assert opened.count(f'"case_id": "{flipped[0]}"') == 2, "both records"
    browser.screenshot(artifacts / "report-compare.png")
    assert browser.errors() == []
