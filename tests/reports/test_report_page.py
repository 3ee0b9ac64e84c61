"""Each run's HTML page (issue 22), read as a file: beside every kind's JSON, self-contained, listing
every item with the report's own verdict; `harness report render|open` for any report, old ones too."""

from __future__ import annotations

import json
import re
import sys
import webbrowser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from harness.reports.fields import FIELDS
from harness.reports.html.page import render_html
from harness.reports.html.rows import rows

from .pages import FAILED, belief_suite, failed_items, harness

KINDS = sorted(FAILED)


def page_data(html: str) -> dict[str, Any]:
    """The report data the page embeds for its script."""
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert match, "the page embeds no report data"
    return json.loads(match.group(1))


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_writes_its_page_beside_its_json(report_of_kind: dict[str, Path], kind: str) -> None:
    report = json.loads(report_of_kind[kind].read_text())
    stamped = report_of_kind[kind].with_name(report["files"]["html"])
    assert report["files"]["html"] == Path(report["files"]["json"]).with_suffix(".html").name
    assert stamped.is_file()
    assert report_of_kind[kind].with_suffix(".html").read_text() == stamped.read_text()


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_fetches_nothing(report_of_kind: dict[str, Path], kind: str) -> None:
    html = report_of_kind[kind].with_suffix(".html").read_text()
    assert re.findall(r"""(?:src|href)\s*=\s*["'](?!#)""", html) == []
    assert "<link" not in html
    assert "@import" not in html
    assert re.findall(r"url\((?!#)", html) == []


@pytest.mark.parametrize("kind", KINDS)
def test_the_page_lists_every_item_with_the_reports_verdict(report_of_kind: dict[str, Path], kind: str) -> None:
    report = json.loads(report_of_kind[kind].read_text())
    data = page_data(report_of_kind[kind].with_suffix(".html").read_text())
    key, _ = FAILED[kind]
    assert data["items"] == report[key]
    failed = [item for item, row in zip(data["items"], data["rows"], strict=True) if row[0] in ("fail", "error")]
    assert failed == failed_items(report)
    assert failed, f"the {kind} run was set up with a failing item"


def test_a_skipped_question_is_no_error(report_of_kind: dict[str, Path]) -> None:
    """An abstention question is left out of retrieval metrics; its `error` field says why."""
    report = json.loads(report_of_kind["haystack"].read_text())
    data = page_data(report_of_kind["haystack"].with_suffix(".html").read_text())
    verdicts = {(row[1], row[0]) for row in data["rows"]}
    assert ("q2_abs", "skipped") in verdicts
    assert next(q for q in report["questions"] if q["id"] == "q2_abs")["error"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_scorecard_shows_the_reports_scores(report_of_kind: dict[str, Path], kind: str) -> None:
    report = json.loads(report_of_kind[kind].read_text())
    html = report_of_kind[kind].with_suffix(".html").read_text()
    scorecard = html[html.index('<section id="scorecard">') : html.index("</section>")]
    for name, value in report["scores"]["bm25"]["overall"].items():
        assert f"<th>{name}</th>" in scorecard
        assert f">{value:.4g}<" in scorecard if isinstance(value, float) else f">{value}<" in scorecard


def test_the_scorecard_shows_pass_types_and_latency_of_the_summary(report_of_kind: dict[str, Path]) -> None:
    beliefs = json.loads(report_of_kind["beliefs"].read_text())
    html = report_of_kind["beliefs"].with_suffix(".html").read_text()
    scorecard = html[html.index('<section id="scorecard">') : html.index("</section>")]
    (summary,) = beliefs["summary"]
    types = " / ".join(f"{n} {name}" for name, n in summary["pass_types"].items())
    assert f"<td>{types}</td>" in scorecard
    assert f">{summary['p50_ms']:.4g}<" in scorecard
    assert f">{summary['p95_ms']:.4g}<" in scorecard
    dataset = json.loads(report_of_kind["haystack"].read_text())
    html = report_of_kind["haystack"].with_suffix(".html").read_text()
    scorecard = html[html.index('<section id="scorecard">') : html.index("</section>")]
    assert f">{dataset['summary']['bm25']['latency_ms']['p95']:.4g}<" in scorecard


def test_an_incomplete_shard_says_so_above_everything(report_of_kind: dict[str, Path]) -> None:
    report = json.loads(report_of_kind["lifecycle"].read_text())
    report |= {"incomplete": True, "incomplete_reason": "stopped by Ctrl-C", "shard": {"index": 1, "count": 2}}
    html = render_html(report)
    assert 'id="banner-incomplete"><strong>INCOMPLETE RUN:</strong> stopped by Ctrl-C.' in html
    assert 'id="banner-shard"><strong>SHARD 1 of 2:</strong>' in html
    assert html.index("banner-incomplete") < html.index('id="scorecard"')


def test_shards_have_their_pages_and_so_has_their_merge(tmp_path: Path) -> None:
    run = ["run", "-m", "bm25", "--suite", "lifecycle:builtin", "--out", "shards"]
    for index in (1, 2):
        assert harness(tmp_path, *run, "--shard", f"{index}/2") in (0, 1)
    shards = sorted((tmp_path / "shards").glob("lifecycle-embedded-shard*of2-2*.json"))
    for index, shard in enumerate(shards, 1):
        assert f"<strong>SHARD {index} of 2:</strong>" in shard.with_suffix(".html").read_text()
    # 1: the built-in scenarios' own gate in bm25, the unsharded run's verdict (merge gives it too)
    assert harness(tmp_path, "merge", *map(str, shards), "--out", "merged") in (0, 1)
    merged = json.loads((tmp_path / "merged" / "lifecycle-embedded-latest.json").read_text())
    html = (tmp_path / "merged" / "lifecycle-embedded-latest.html").read_text()
    assert page_data(html)["items"] == merged["results"]
    assert len(merged["results"]) == sum(len(json.loads(s.read_text())["results"]) for s in shards)
    assert "SHARD" not in html


def test_an_old_report_without_an_envelope_is_rendered(report_of_kind: dict[str, Path], tmp_path: Path) -> None:
    report = json.loads(report_of_kind["beliefs"].read_text())
    old = tmp_path / "run-embedded-old.json"
    old.write_text(json.dumps({k: v for k, v in report.items() if k not in FIELDS}))
    assert harness(tmp_path, "report", "render", str(old)) == 0
    html = old.with_suffix(".html").read_text()
    assert html.startswith("<!doctype html>")
    assert page_data(html)["items"] == report["cases"]
    assert "<title>beliefs · embedded</title>" in html


def test_an_old_code_task_report_names_its_task_set(report_of_kind: dict[str, Path]) -> None:
    """Before the envelope, a code-task report's `suite` was its task set (name, source, code base)."""
    report = json.loads(report_of_kind["code-tasks"].read_text())
    old = {k: v for k, v in report.items() if k not in FIELDS} | {"suite": {"name": "ledger", "source": "x.json"}}
    assert "<title>code-tasks · ledger · embedded</title>" in render_html(old)


def test_render_replaces_its_own_page_and_nothing_else(
    report_of_kind: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "lifecycle.json"
    report.write_text(report_of_kind["lifecycle"].read_text())
    assert harness(tmp_path, "report", "render", str(report)) == 0
    assert harness(tmp_path, "report", "render", str(report)) == 0
    assert f"page: {report.with_suffix('.html')} (replaced)" in capsys.readouterr().out
    notes = tmp_path / "notes.md"
    notes.write_text("mine")
    assert harness(tmp_path, "report", "render", str(report), "--out", str(notes)) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"harness: error: {notes}: exists and is not a harness report page; name another with --out"
    ]
    assert notes.read_text() == "mine"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "not JSON: line 1 column 2: Expecting property name enclosed in double quotes"),
        ('{"summary": {}}', "not a harness run report (no envelope, no items of a known kind)"),
    ],
)
def test_render_of_what_is_not_a_report_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "x.json"
    if content is not None:
        path.write_text(content)
    assert harness(tmp_path, "report", "render", str(path)) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"harness: error: {path}: {message}"]
    assert not path.with_suffix(".html").exists()


def test_open_renders_a_missing_page_and_hands_it_to_the_browser(
    report_of_kind: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "conversation.json"
    report.write_text(report_of_kind["conversation"].read_text())
    opened: list[str] = []

    def browser_opens(uri: str) -> bool:
        opened.append(uri)
        return True

    monkeypatch.setattr(webbrowser, "open", browser_opens)
    assert harness(tmp_path, "report", "open", str(report)) == 0
    assert opened == [report.with_suffix(".html").resolve().as_uri()]
    assert page_data(report.with_suffix(".html").read_text())["items"] == json.loads(report.read_text())["turns"]
    monkeypatch.setattr(webbrowser, "open", lambda _uri: False)
    assert harness(tmp_path, "report", "open", str(report.with_suffix(".html"))) == 0
    assert f"no browser to open it here; open {opened[0]}" in capsys.readouterr().err


def test_a_page_that_cannot_be_drawn_costs_the_run_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run draws its page in a child process (`child.py`): a child that fails leaves a note."""
    from harness.evaluation import runner
    from harness.reports.html import child

    monkeypatch.setattr(runner, "page_process", child.page_process)  # the child is the point here
    monkeypatch.setattr(sys, "executable", "/bin/false")
    assert harness(tmp_path, "run", "-m", "bm25", "--suite", "lifecycle:builtin", "--limit", "1", "--out", "out") in (
        0,
        1,
    )
    report = json.loads((tmp_path / "out" / "lifecycle-embedded-latest.json").read_text())
    assert len(report["results"]) == 1
    html = (tmp_path / "out" / "lifecycle-embedded-latest.html").read_text()
    assert "could not be drawn (the page&#39;s process exited with 1: no message)" in html
    monkeypatch.undo()
    assert harness(tmp_path, "report", "render", str(tmp_path / "out" / "lifecycle-embedded-latest.json")) == 0
    assert page_data((tmp_path / "out" / "lifecycle-embedded-latest.html").read_text())["items"] == report["results"]


def test_a_bug_of_the_page_gives_the_note_page(
    report_of_kind: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the child draws when the page itself fails: a note naming the error, never a traceback."""
    from harness.reports.html import page

    def broken(*_: object) -> list[Any]:
        raise ValueError("a bug in a chart")

    monkeypatch.setattr(page, "charts", broken)
    html = page.page_or_note(json.loads(report_of_kind["lifecycle"].read_text()))
    assert "could not be drawn (ValueError: a bug in a chart)" in html


def test_diff_lists_what_regressed_and_what_was_fixed(report_of_kind: dict[str, Path], tmp_path: Path) -> None:
    """The base run fails its first case; the new run passes it and fails the second."""
    (tmp_path / "new").mkdir()
    suite = belief_suite(tmp_path / "new", case=1, wrong="m-ent-postgres")
    assert harness(tmp_path, "run", "-m", "bm25", "--suite", str(suite), "--out", "new") == 0  # no gate: exit 0
    base, new = report_of_kind["beliefs"], tmp_path / "new" / "run-embedded-latest.json"
    assert harness(tmp_path, "report", "diff", str(base), str(new), "--out", "diff.html") == 0
    html = (tmp_path / "diff.html").read_text()
    changed = re.findall(r'<tr class="change" data-status="(\w+)" data-id="([^"]+)">', html)
    assert changed == [("regressed", "beliefs/alias-short-k8s"), ("fixed", "beliefs/alias-short-pg")]
    (regressed,) = [c for c in json.loads(new.read_text())["cases"] if c["case_id"] == "alias-short-k8s"]
    assert all(f"<li>{escape(reason)}</li>" in html for reason in regressed["reasons"])
    same = len(json.loads(new.read_text())["cases"]) - 2
    assert f'id="count-same">{same}<' in html


def test_diff_of_two_kinds_is_one_line(
    report_of_kind: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = report_of_kind["beliefs"], report_of_kind["lifecycle"]
    assert harness(tmp_path, "report", "diff", str(base), str(new)) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "harness: error: report diff needs two reports of one kind, not beliefs and lifecycle"
    ]


def test_a_run_names_its_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness(tmp_path, "run", "-m", "bm25", "--suite", "lifecycle:builtin", "--limit", "1", "--out", "out") in (
        0,
        1,
    )
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("page: ")]
    (page,) = (tmp_path / "out").glob("lifecycle-embedded-2*.html")
    assert line == f"page: {page.resolve().as_uri()}"


def test_a_thousand_items_stay_a_compact_page(report_of_kind: dict[str, Path]) -> None:
    """Rows travel once, as compact JSON: the page is about its JSON's size, not a table per row."""
    report = json.loads(report_of_kind["beliefs"].read_text())
    report["cases"] = [case | {"case_id": f"{case['case_id']}-{n}"} for n in range(12) for case in report["cases"]]
    report["view"]["rows"] = [row | {"id": f"{row['id']}-{n}"} for n in range(12) for row in report["view"]["rows"]]
    assert len(report["cases"]) > 1000
    html = render_html(report)
    assert len(page_data(html)["rows"]) == len(report["cases"])
    assert len(html.encode()) < len(json.dumps(report, indent=1).encode())


@pytest.mark.parametrize("kind", KINDS)
def test_a_report_from_before_view_lists_the_rows_its_kind_declares_now(
    report_of_kind: dict[str, Path], kind: str
) -> None:
    """A report's rows come from its `view` (the kind's spec, written by the runner); one written
    before `view` is read by where its kind kept its items, and lists the same rows."""
    report = json.loads(report_of_kind[kind].read_text())
    listing, listed = rows(report)
    before, listed_before = rows({k: v for k, v in report.items() if k != "view"})
    assert listing is not None
    assert before is not None
    assert (listing.kind, listing.key) == (kind, FAILED[kind][0])
    assert (before.kind, before.key, before.unit) == (listing.kind, listing.key, listing.unit)
    assert [(r.id, r.category, r.title, r.verdict) for r in listed_before] == [
        (r.id, r.category, r.title, r.verdict) for r in listed
    ]
    assert len(listed) == len(report[listing.key]) > 0
