"""A page's charts: drawn from the report's numbers the same bytes each time, as plain SVG (no
script, nothing fetched), a name from a suite or a system only ever as text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.reports.html.charts import charts
from harness.reports.html.page import render_html
from harness.reports.html.rows import Row, rows

from .test_report_page import KINDS

HOSTILE = '</svg><script>alert("x")</script><svg>'


@pytest.mark.parametrize("kind", KINDS)
def test_a_report_draws_the_same_charts_each_time_without_script(report_of_kind: dict[str, Path], kind: str) -> None:
    document = json.loads(report_of_kind[kind].read_text())
    drawn = charts(document, rows(document)[1])
    assert drawn, f"a {kind} run has scores to chart"
    assert render_html(document) == render_html(document)
    for chart in drawn:
        assert chart.svg.startswith("<svg")
        assert chart.svg.endswith("</svg>")
        assert "<script" not in chart.svg
        assert re.findall(r"""(?:src|href)\s*=\s*["'](?!#)""", chart.svg) == []


def test_a_hostile_category_or_mode_is_only_text(report_of_kind: dict[str, Path]) -> None:
    document = json.loads(report_of_kind["lifecycle"].read_text())
    sheet = document["scores"]["bm25"]
    document["scores"] = {HOSTILE: {**sheet, "categories": {HOSTILE: next(iter(sheet["categories"].values()))}}}
    page = render_html(document)
    assert HOSTILE not in page
    assert page.count("<script") == 2, "the page's own data and code, and nothing else"
    assert any("&lt;/svg&gt;&lt;script&gt;" in chart.svg for chart in charts(document, []))


def test_a_level_every_measure_names_is_said_once_in_the_axis_title() -> None:
    one = {"scores": {"bm25": {"overall": {"session/recall_any@1": 0.5, "session/recall_any@5": 0.7}}}}
    (chart,) = charts(one, [])
    assert ">recall_any@1<" in chart.svg
    assert ">recall_any@5<" in chart.svg
    assert "score (session)" in chart.svg
    assert "session/recall_any" not in chart.svg
    both = {"scores": {"bm25": {"overall": {"session/recall_any@1": 0.5, "turn/recall_any@1": 0.4}}}}
    (chart,) = charts(both, [])
    assert ">session/recall_any@1<" in chart.svg
    assert ">turn/recall_any@1<" in chart.svg


def test_the_latency_axis_is_solid_only_at_its_left_edge() -> None:
    """A log axis drawn on pygal's linear one: the tick at 1 ms is a dashed guide like the others,
    not the solid line pygal draws at its 0; a tick's and a bar's hover title are in ms."""
    latencies = (0.3, 0.8, 1.0, 4.0, 20.0, 60.0)
    spread = [Row(f"c{i}", "bm25", "embedded", "", "", "pass", {"latency_ms": ms}) for i, ms in enumerate(latencies)]
    (chart,) = charts({}, spread)
    ticks = re.findall(
        r'<path d="M[\d.]+ 0\.0+ v[\d.]+" class="([^"]*)"/><text[^>]*>([^<]*)</text><title>([^<]*)<', chart.svg
    )
    assert [label for _, label, _ in ticks] == ["0.5", "1", "2", "5", "10", "20", "50"]
    assert all(kind == "guide line" for kind, _, _ in ticks)
    assert [title for _, _, title in ticks] == ["0.5", "1", "2", "5", "10", "20", "50"]
    assert '<g class="histbar"><title>embedded bm25 · 1 item, 0.3 to 0.358 ms</title>' in chart.svg


def test_each_bar_says_its_series_label_and_value_on_hover() -> None:
    """The page loads no script, so a bar's value is in a `<title>`, which the browser shows."""
    two = {"scores": {"bm25": {"overall": {"mrr": 0.5}}, "hybrid": {"overall": {"mrr": 0.625}}}}
    (chart,) = charts(two, [])
    assert re.findall(r'<g class="bar"><title>([^<]*)</title>', chart.svg) == [
        "bm25 · mrr · 0.5",
        "hybrid · mrr · 0.625",
    ]
