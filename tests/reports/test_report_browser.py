"""Each kind's page opened in headless Chromium (issue 22): no console error, the failed-only filter
lists exactly the failed items, a failed row opens to its reasons, 1,000+ items page through, and a
screenshot of each page (light and dark) is written as a test artifact (`$HARNESS_TEST_ARTIFACTS`,
default: the test's temp folder). CI installs Debian's chromium; without it this fails there and is
skipped, saying why, elsewhere."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.reports.html.diff import render_diff
from harness.reports.html.page import render_html

from .browser import Browser
from .pages import FAILED

KINDS = sorted(FAILED)

EVIDENCE: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "beliefs": lambda item: item["reasons"],
    "conversation": lambda item: item["reasons"],
    "lifecycle": lambda item: [name for name, grade in item["grades"].items() if grade == "FAIL"],
    "code-tasks": lambda item: item["missed"],
    "haystack": lambda item: item["levels"]["session"]["gold"],
}
"""Per kind, what an opened failed row must show: the judge's reasons, or the report's own evidence."""


def set_filter(browser: Browser, element: str, value: bool | str) -> None:
    prop = "checked" if isinstance(value, bool) else "value"
    browser.evaluate(
        f"(() => {{ const e = document.getElementById({json.dumps(element)}); e.{prop} = {json.dumps(value)};"
        " e.dispatchEvent(new Event('input')); })()"
    )


def listed(browser: Browser) -> list[int]:
    return browser.evaluate("[...document.querySelectorAll('#rows tr.row')].map((tr) => Number(tr.dataset.index))")


def count(browser: Browser) -> str:
    return browser.evaluate("document.getElementById('count').textContent")


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_in_a_browser(browser: Browser, artifacts: Path, report_of_kind: dict[str, Path], kind: str) -> None:
    report = json.loads(report_of_kind[kind].read_text())
    key, failed = FAILED[kind]
    items = report[key]
    expected = [i for i, item in enumerate(items) if failed(item)]
    browser.events.clear()
    browser.open(report_of_kind[kind].with_suffix(".html"))

    assert listed(browser) == list(range(len(items)))
    assert count(browser) == f"{len(items)} of {len(items)} shown"
    set_filter(browser, "filter-failed", True)
    assert listed(browser) == expected
    assert count(browser) == f"{len(expected)} of {len(items)} shown"

    first = expected[0]
    browser.evaluate(f"document.querySelector('#rows tr.row[data-index=\"{first}\"]').click()")
    panel = browser.evaluate(f"document.querySelector('tr.detail div[data-index=\"{first}\"]').innerText")
    for evidence in EVIDENCE[kind](items[first]):
        assert evidence in panel, (kind, evidence)
    if items[first].get("reasons"):
        shown = browser.evaluate("[...document.querySelectorAll('tr.detail .reasons li')].map((li) => li.textContent)")
        assert shown == items[first]["reasons"]

    if kind == "beliefs":  # ids come with their memory's text, expected and retrieved alike
        texts = report["memories"][items[first]["suite"]]
        named = [*items[first]["expected"]["relevant"]["should_only_include"], items[first]["retrieved"]["pinned"][0]]
        for memory_id in named:
            assert f"{memory_id}{texts[memory_id]}" in panel.replace("\n", "").replace("\t", ""), memory_id

    browser.screenshot(artifacts / f"report-page-{kind}.png")
    browser.send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        assert browser.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"
        browser.screenshot(artifacts / f"report-page-{kind}-dark.png")
    finally:
        browser.send("Emulation.setEmulatedMedia", {"features": []})
    assert browser.errors() == []


def test_a_thousand_items_page_through_and_search(
    browser: Browser, report_of_kind: dict[str, Path], tmp_path: Path
) -> None:
    report = json.loads(report_of_kind["beliefs"].read_text())
    report["cases"] = [case | {"case_id": f"{case['case_id']}-{n}"} for n in range(12) for case in report["cases"]]
    total = len(report["cases"])
    page = tmp_path / "big.html"
    page.write_text(render_html(report))
    browser.events.clear()
    browser.open(page)

    assert listed(browser) == list(range(200))
    assert count(browser) == f"{total} of {total} shown (first 200 listed)"
    browser.evaluate("document.getElementById('more').click()")
    assert listed(browser) == list(range(400))
    target = report["cases"][-1]  # a session turn: its case's other turns share its id
    set_filter(browser, "search", target["case_id"].upper())
    mentioning = [i for i, case in enumerate(report["cases"]) if target["case_id"] in json.dumps(case)]
    assert target["turn"] is not None
    assert listed(browser) == mentioning
    assert len(mentioning) == sum(case["case_id"] == target["case_id"] for case in report["cases"]) > 1
    set_filter(browser, "search", "")
    category = report["cases"][0]["category"]
    set_filter(browser, "filter-category", category)
    in_category = [i for i, case in enumerate(report["cases"]) if case["category"] == category]
    assert count(browser).startswith(f"{len(in_category)} of {total} shown")
    assert listed(browser) == in_category[:200]
    assert browser.errors() == []


def test_the_diff_page_in_a_browser(
    browser: Browser, artifacts: Path, report_of_kind: dict[str, Path], tmp_path: Path
) -> None:
    base = json.loads(report_of_kind["beliefs"].read_text())
    new = json.loads(json.dumps(base))
    at, regressed = next((n, case) for n, case in enumerate(new["cases"]) if case["passed"])
    regressed |= {"passed": False, "reasons": ["relevant: expected exactly [a], got [b]"]}
    new["view"]["rows"][at]["failed"] = True  # as the run that judged it so would have written
    page = tmp_path / "diff.html"
    page.write_text(render_diff(base, new, "base.json", "new.json"))
    browser.events.clear()
    browser.open(page)
    listed = browser.evaluate(
        "[...document.querySelectorAll('tr.change')].map((tr) => [tr.dataset.status, tr.dataset.id])"
    )
    assert listed == [["regressed", f"{regressed['suite']}/{regressed['case_id']}"]]
    browser.evaluate("document.querySelector('tr.change details').open = true")
    assert "relevant: expected exactly [a], got [b]" in browser.evaluate(
        "document.querySelector('tr.change').innerText"
    )
    browser.screenshot(artifacts / "report-diff.png")
    assert browser.errors() == []


def test_an_opened_case_draws_what_it_must_not_surface_as_forbidden(
    browser: Browser, report_of_kind: dict[str, Path]
) -> None:
    """oq-pinned-without-query: the pinned tier must exclude an open question its own tier must include."""
    report = json.loads(report_of_kind["beliefs"].read_text())
    case = next(c for c in report["cases"] if c["case_id"] == "oq-pinned-without-query")
    (question,) = case["expected"]["pinned"]["must_exclude"]
    assert question in case["retrieved"]["open_questions"]  # found where it belongs
    browser.events.clear()
    browser.open(report_of_kind["beliefs"].with_suffix(".html"))
    set_filter(browser, "search", case["case_id"])
    browser.evaluate(f"document.querySelector('#rows tr.row[data-id$=\"/{case['case_id']}\"]').click()")
    chips = browser.evaluate(
        "[...document.querySelectorAll('tr.detail .chip.forbidden')]"
        ".map((c) => [c.firstChild.textContent, c.querySelector('.chip-label').textContent])"
    )
    assert chips == [[question, "must not surface"]]  # in the expectation; retrieved nowhere it is forbidden
    hits = browser.evaluate("[...document.querySelectorAll('tr.detail .chip.hit')].map((c) => c.textContent)")
    assert question in hits  # among the open questions, where it is expected
    assert browser.errors() == []
