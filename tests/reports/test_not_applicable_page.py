"""A kind not applicable to the system under test (issue 42): its page and its Markdown open with a
NOT APPLICABLE banner giving the reason in plain words, and show nothing as if the kind had run (no
scorecard, chart, item or table); each reason says what docs/system-protocol.md says of its kind.
Read as files: the HTML and Markdown a bare HTTP wrapper's run writes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from harness.evaluation.kinds.conversation.runner import NEEDED as CONVERSATION_NEEDS
from harness.evaluation.kinds.lifecycle.port import needed
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.reports.escape import md
from tests.systems.memory_server import Store, serving

from .pages import harness
from .test_report_page import page_data

ROOT = Path(__file__).resolve().parents[2]
SUITES = {"lifecycle": "lifecycle:builtin", "conversation": "conversation:builtin", "code-tasks": "code-tasks:builtin"}
UNITS = {"lifecycle": "scenarios", "conversation": "turns", "code-tasks": "tasks"}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Per kind, the bare wrapper's report (in hybrid, the one mode it offers): its JSON, Markdown, page, and every file of the run."""
    root = tmp_path_factory.mktemp("not-applicable")
    suites = [arg for suite in SUITES.values() for arg in ("-s", suite)]
    with pytest.MonkeyPatch.context() as patch, serving(Store(extended=False)) as url:
        patch.setenv("HARNESS_STATE_DIR", str(root / "state"))
        frozen = ("--freeze-baseline", "--baseline-dir", "baselines")
        assert harness(root, "run", "--system", f"http:{url}", *suites, "-m", "hybrid", "--out", "out", *frozen) == 0
    out = root / "out"
    reports = {}
    for path in out.glob("*-latest.json"):
        report = json.loads(path.read_text())
        reports[report["kind"]] = {
            "report": report,
            "markdown": path.with_suffix(".md").read_text(),
            "html": path.with_suffix(".html").read_text(),
            "files": sorted(p.name for p in out.iterdir()),
            "baselines": [json.loads(p.read_text()) for p in (root / "baselines").glob(f"{report['kind']}-*/*.json")],
        }
    assert sorted(reports) == sorted(SUITES)
    return reports


@pytest.mark.parametrize("kind", sorted(SUITES))
def test_the_page_opens_with_the_banner_and_shows_nothing_as_run(written: dict[str, dict[str, Any]], kind: str) -> None:
    report, html = written[kind]["report"], written[kind]["html"]
    reason, system = report["not_applicable"], report["system"]["name"]
    said = f"{reason} No {UNITS[kind]} ran on system {system!r}: nothing was judged."
    banner = f'id="banner-not-applicable"><strong>NOT APPLICABLE:</strong> {escape(said)}</p>'
    assert banner in html
    assert html.index("banner-not-applicable") < html.index("<main>")
    for shown_as_run in ('id="scorecard"', 'id="categories"', 'id="charts"', 'id="items"', "<svg", "<th>pass</th>"):
        assert shown_as_run not in html, shown_as_run
    data = page_data(html)
    assert data["rows"] == data["items"] == []
    assert "not_applicable" not in data["sections"]["Run"]  # said once, in the banner
    assert "Summary as reported" not in data["sections"]


@pytest.mark.parametrize("kind", sorted(SUITES))
def test_the_markdown_opens_with_the_banner_and_nothing_else(written: dict[str, dict[str, Any]], kind: str) -> None:
    report, markdown = written[kind]["report"], written[kind]["markdown"]
    reason, system = report["not_applicable"], report["system"]["name"]
    said = f"{reason} No {UNITS[kind]} ran on system {system!r}: nothing was judged."
    lines = markdown.splitlines()
    assert lines[0].startswith("# ")
    assert f"> **NOT APPLICABLE**: {md(said)}" in lines[:6]
    assert not any(line.startswith("|") for line in lines)  # no table of nothing
    assert not re.search(r"\b0/0\b", markdown)


@pytest.mark.parametrize("kind", sorted(SUITES))
def test_its_baseline_holds_no_measure(written: dict[str, dict[str, Any]], kind: str) -> None:
    """`--freeze-baseline` freezes each mode as every kind does, with nothing measured in it: a
    later check or comparison never reads a pass rate of 0 that no item earned."""
    (baseline,) = written[kind]["baselines"]
    assert (baseline["mode"], baseline["overall"], baseline["categories"], baseline["cases"]) == ("hybrid", {}, {}, {})


def test_no_chart_of_nothing_is_drawn(written: dict[str, dict[str, Any]]) -> None:
    files = written["conversation"]["files"]
    assert not [name for name in files if name.endswith(".png")]


@pytest.mark.parametrize("kind", sorted(SUITES))
def test_each_reason_is_in_plain_words(written: dict[str, dict[str, Any]], kind: str) -> None:
    reason = written[kind]["report"]["not_applicable"]
    assert reason[0].isupper()
    assert reason.endswith(".")
    for jargon in ("port", "code-graph", "kind needs", "not_applicable"):
        assert not re.search(rf"\b{jargon}\b", reason), jargon


def _row(kind: str) -> str:
    """The cell of docs/system-protocol.md's table 'What runs through it' that says how `kind` runs."""
    text = (ROOT / "docs" / "system-protocol.md").read_text()
    table = text[text.index("## What runs through it") :].split("\n## ", 1)[0]
    (row,) = [line for line in table.splitlines() if line.startswith(f"| {kind}")]
    return row.split(" | ", 1)[1]


def _needs_in_docs(kind: str) -> list[str]:
    match = re.search(r"needs ((?:`[a-z-]+`(?:, | and )?)+)", _row(kind))
    assert match, kind
    return re.findall(r"`([a-z-]+)`", match.group(1))


def _needs_in_reason(reason: str) -> list[str]:
    match = re.search(r"need the capabilit(?:y|ies) ([a-z, -]+);", reason)
    assert match, reason
    return re.split(r", | and ", match.group(1))


def test_the_reasons_and_the_protocol_document_agree(written: dict[str, dict[str, Any]]) -> None:
    lifecycle = [c.value for c in needed(LifecycleSettings())]
    assert _needs_in_docs("lifecycle scenarios") == lifecycle
    assert _needs_in_reason(written["lifecycle"]["report"]["not_applicable"]) == lifecycle
    assert written["lifecycle"]["report"]["not_applicable"].endswith("declares none of them.")
    conversation = [c.value for c in CONVERSATION_NEEDS]
    assert _needs_in_docs("conversations") == conversation
    assert _needs_in_reason(written["conversation"]["report"]["not_applicable"]) == conversation
    assert written["conversation"]["report"]["not_applicable"].endswith("does not declare it.")
    assert f"not applicable: {written['code-tasks']['report']['not_applicable']}" in _row("code tasks")
