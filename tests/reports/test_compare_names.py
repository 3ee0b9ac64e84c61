"""`harness compare` and `harness leaderboard` name systems as they declare themselves (issue 42):
the name and version an HTTP service declares in `GET /capabilities`, its URL as a detail, in a
column of its own, the reference pipeline labelled as such; one mean per measure (the paired
test's means are the table's item mean, named alike); a row for every kind's report, a kind not
applicable to the system saying so; published figures only under a column of their suite and rules.

Reports of an HTTP system are built here from the reference runs of every kind, as a `--system
http:URL` run writes them (the envelope's `system`, `not_applicable` and, for a kind the system
cannot run, its scores)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.reports import compare as comparing
from harness.reports import leaderboard as boards
from harness.reports.compare import Compared
from harness.reports.document import sealed
from harness.reports.reader import Reader
from harness.suites.public import PUBLIC_SUITES

from .browser import Browser
from .pages import harness

URL = "http://127.0.0.1:18431"
MINE = {
    "name": f"http:{URL}",
    "version": "0.4.1",
    "capabilities": ["scopes", "supersession", "users"],
    "modes": ["bm25"],
    "notes": [],
    "declared_name": "my-memory",
}
"""What a run of a service declaring `{"name": "my-memory", "version": "0.4.1", ...}` records."""
SHOWN = f"my-memory 0.4.1 ({URL})"
NOT_APPLICABLE = {
    "code-tasks": "the code-tasks kind needs code-graph",
    "lifecycle": "the lifecycle kind needs timestamps, clock, access, consolidation",
    "conversation": "the conversation kind needs budget",
}
"""Per kind the service cannot run, the reason its report gives."""
EMPTY: dict[str, dict[str, Any]] = {
    "code-tasks": {},
    "lifecycle": {"bm25": {"overall": {}, "categories": {}, "cases": {}}},
    "conversation": {"bm25": {"overall": {"pass_rate": 0.0}, "categories": {}, "cases": {}}},
}
"""Per kind, the scores its not-applicable report holds, as the runner writes them (none; an empty
sheet; a sheet of no turns whose pass rate is 0)."""


def _failing_more(report: dict[str, Any]) -> dict[str, Any]:
    """The belief report as the service's run: every second item of its sheet failed."""
    copy = json.loads(json.dumps(report))
    for index, case in enumerate(copy["scores"]["bm25"]["cases"].values()):
        case["passed"] = case["passed"] and index % 2 == 0
    return copy


@pytest.fixture(scope="module")
def reports(report_of_kind: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per name, a sealed report: the reference pipeline's runs of every kind (`ref-KIND`) and the
    service's (`http-KIND`): its beliefs scored, its other kinds not applicable to it."""
    root = tmp_path_factory.mktemp("names")
    written = {}
    for kind, path in report_of_kind.items():
        ours = json.loads(path.read_text())
        theirs = json.loads(json.dumps(ours)) | {"system": MINE}
        if kind == "beliefs":
            theirs = _failing_more(theirs)
        elif kind in NOT_APPLICABLE:
            theirs |= {"not_applicable": NOT_APPLICABLE[kind], "scores": EMPTY[kind]}
        else:
            continue  # the dataset kind: no report of the service
        for name, report in ((f"ref-{kind}", ours), (f"http-{kind}", theirs)):
            written[name] = root / f"{name}.json"
            written[name].write_text(json.dumps(sealed(report)))
    return written


def _loaded(reports: dict[str, Path], *names: str) -> list[Compared]:
    return comparing.load_reports([reports[n] for n in names], Reader())


def test_compare_shows_the_declared_name_and_version_in_a_system_column(reports: dict[str, Path]) -> None:
    card = comparing.table(_loaded(reports, "ref-beliefs", "http-beliefs"))
    rows = [dict(zip(card.columns, row, strict=True)) for row in card.rows]
    reference = json.loads(reports["ref-beliefs"].read_text())["system"]["version"]
    assert [(r["system"], r["backend"]) for r in rows] == [
        (f"reference pipeline {reference}", "embedded"),
        (SHOWN, "embedded"),
    ]


def test_a_report_from_before_declared_names_shows_the_name_it_recorded(reports: dict[str, Path]) -> None:
    """A report written before `declared_name` (or without `system`) is read as it is, never refused."""
    old = json.loads(reports["http-beliefs"].read_text())
    del old["system"]["declared_name"]
    older = json.loads(reports["ref-beliefs"].read_text())
    del older["system"]
    card = comparing.table([Compared(Path("old.json"), old), Compared(Path("older.json"), older)])
    assert [row[2] for row in card.rows] == [f"http:{URL} 0.4.1", f"reference pipeline {older['harness_version']}"]


def test_the_paired_test_and_the_table_give_one_mean_per_measure(reports: dict[str, Path]) -> None:
    """The belief sheet lists static cases and session turns; its pass rate counts a session once,
    whole, so it is not the share of items passed the paired test compares. The table names that
    share beside the pass rate, with the test's figure, and the test names it too."""
    loaded = _loaded(reports, "ref-beliefs", "http-beliefs")
    (difference,) = comparing.differences(loaded)
    card = comparing.table(loaded)
    means = [row[card.columns.index("item mean")] for row in card.rows]
    assert means == [
        f"items passed {difference.test.mean_first:.4f}",
        f"items passed {difference.test.mean_second:.4f}",
    ]
    theirs = json.loads(reports["http-beliefs"].read_text())["scores"]["bm25"]
    cases = theirs["cases"].values()
    assert difference.test.mean_second == sum(c["passed"] for c in cases) / len(cases)
    assert f"{difference.test.mean_second:.3f}" != f"{theirs['overall']['pass_rate']:.3f}", "two measures"
    assert f"items passed {difference.test.mean_first:.4f} -> {difference.test.mean_second:.4f}" in difference.line()
    assert " mean " not in difference.line()


def test_every_kinds_report_gets_a_row_in_compare(reports: dict[str, Path]) -> None:
    """A kind not applicable to the system is a row saying so: not left out (no scores), not blank
    (an empty sheet), not a zero (a sheet of no turns)."""
    names = [f"{side}-{kind}" for kind in ("beliefs", *NOT_APPLICABLE) for side in ("ref", "http")]
    card = comparing.table(_loaded(reports, *names))
    rows = {(row[0], row[2]): dict(zip(card.columns, row, strict=True)) for row in card.rows}
    assert len(rows) == len(card.rows) == len(names)
    for kind, why in NOT_APPLICABLE.items():
        row = rows[(kind, SHOWN)]
        assert (row["mode"], row["items"], row["item mean"]) == ("bm25", "–", "–")
        assert row["overall"] == f"not applicable: {why}"
        assert rows[(kind, next(s for k, s in rows if k == kind and s != SHOWN))]["overall"]
    assert [d.kind for d in comparing.differences(_loaded(reports, *names))] == ["beliefs"]


@pytest.fixture(scope="module")
def written(reports: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`harness compare` and `harness leaderboard` of every report: their Markdown, JSON and pages."""
    root = tmp_path_factory.mktemp("written")
    paths = [str(p) for p in reports.values()]
    files = {}
    for command in ("compare", "leaderboard"):
        assert harness(root, command, *paths, "--out", str(root / command)) == 0
        for ext in ("md", "html", "json"):
            files[f"{command}.{ext}"] = root / command / f"{command}-latest.{ext}"
    return files


def test_compare_markdown_and_page_show_the_system_column_and_not_applicable_rows(written: dict[str, Path]) -> None:
    markdown = written["compare.md"].read_text()
    assert "| kind | suite · rules | system | backend | mode | items | item mean | overall |" in markdown
    assert f"| code-tasks | {_suite(written, 'code-tasks')} | {SHOWN} | embedded | bm25 | – | – | not applicable: " in (
        markdown
    )
    html = written["compare.html"].read_text()
    assert (
        f'<td class="system">my-memory <span class="version">0.4.1</span><br><small class="detail">{URL}</small>'
        in (html)
    )
    assert html.count('<td class="unscored"') == len(NOT_APPLICABLE)
    assert '<td class="system">reference pipeline <span class="version">' in html
    assert "<th>measure</th>" in html
    assert "<td>items passed</td>" in html


def _suite(written: dict[str, Path], kind: str) -> str:
    """The kind's suite and rules, as compare's cell and the leaderboard's column name them."""
    data = json.loads(written["leaderboard.json"].read_text())
    return next(f"{c['suite']} · {c['rules']}" for c in data["columns"] if c["kind"] == kind)


def test_the_leaderboard_shows_the_declared_name_and_a_row_per_kind(written: dict[str, Path]) -> None:
    data = json.loads(written["leaderboard.json"].read_text())
    reference, mine = data["backends"]["embedded"]
    assert mine["system"] == f"http:{URL}"
    assert mine["declared"] == {"name": "my-memory", "version": "0.4.1", "detail": URL}
    assert reference["declared"]["name"] == "reference pipeline"
    assert sorted(c["kind"] for c in data["columns"]) == sorted(["beliefs", *NOT_APPLICABLE])
    assert sorted(mine["not_applicable"]) == sorted(c["key"] for c in data["columns"] if c["kind"] in NOT_APPLICABLE)
    markdown = written["leaderboard.md"].read_text()
    assert f"| {SHOWN} | bm25 | " in markdown
    assert f"| reference pipeline {reference['declared']['version']} | bm25 | " in markdown


def test_the_leaderboard_page_in_a_browser(written: dict[str, Path], browser: Browser) -> None:
    browser.events.clear()
    browser.open(written["leaderboard.html"])
    shown = browser.evaluate(
        "[...document.querySelectorAll('tr.entry')].map((tr) => [tr.dataset.system, tr.cells[0].innerText])"
    )
    assert [system for system, _ in shown] == ["reference", f"http:{URL}"]
    assert shown[1][1].split() == ["my-memory", "0.4.1", URL]
    assert shown[0][1].startswith("reference pipeline ")
    assert browser.errors() == []


def test_published_figures_only_under_a_column_of_their_suite_and_rules(written: dict[str, Path]) -> None:
    """No report here ran a suite under Popoto's rules: its figures are in no table, only named as unmatched."""
    markdown = written["leaderboard.md"].read_text()
    assert "## Published figures" not in markdown
    assert "Popoto's README" not in markdown
    assert "Published figures with no column of their suite and rules here, so not shown: popoto hybrid on " in (
        markdown
    )
    data = json.loads(written["leaderboard.json"].read_text())
    assert data["published"] == []
    assert {(p["system"], p["suite"]) for p in data["unmatched_published"]} == {
        (p.system, p.suite) for p in boards.published_figures()
    }
    html = written["leaderboard.html"].read_text()
    assert 'id="published"' not in html
    assert 'id="unmatched"' in html


def test_a_matched_figure_is_listed_and_an_unmatched_one_is_not() -> None:
    """Popoto's LongMemEval figure is listed where a public column has its suite and rules; its
    LoCoMo one, with no such column, is not set in that table."""
    figures = boards.published_figures()
    public = next(s for s in PUBLIC_SUITES if s.name == "longmemeval-s")
    column = boards.Column("haystack", "longmemeval-s-session", ("session/recall_any@5",), "popoto", public)
    board = boards.Board([column], {}, figures, [])
    assert {p.suite for p in board.listed} == {"longmemeval-s-session"}
    assert {p.suite for p in board.unmatched} == {p.suite for p in figures} - {"longmemeval-s-session"}
    assert {row[1] for row in boards.published_rows(board)} == {"longmemeval-s-session"}
    markdown = boards.leaderboard_markdown(board)
    table = markdown.split("## Published figures", 1)[1].split("\n\n", 2)[1]
    assert "locomo-turn" not in table
    assert "popoto bm25 on locomo-turn under popoto rules" in markdown
