"""`harness leaderboard` (issue 18): systems (each in each mode) x suites and datasets, one table per
backend, the column's main measure from the reports' own score sheets, each system's published
figures beside ours, as Markdown, JSON, a PNG chart and a page. Reports of several systems are
built here from runs of the reference system, as `--system` runs write them (the envelope's
`system`, `not_applicable`); a report without `system` is of the reference system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.kinds.lifecycle.results import RANKING
from harness.metrics.dataset_measures import metric_names
from harness.metrics.precisionmembench import PmbItem, summary
from harness.models.conversation import Category
from harness.models.rulesets import rules_record
from harness.reports import leaderboard as boards
from harness.reports.compare import Compared
from harness.reports.document import sealed
from harness.reports.system_label import system_label
from harness.suites.public import PUBLIC_SUITES

from .browser import Browser
from .pages import harness

PUBLISHED = Path(__file__).parents[2] / "harness" / "reports" / "published_systems.json"
POPOTO = {"name": "popoto", "version": "test", "capabilities": [], "modes": ["hybrid"], "notes": []}
PUBLIC = {s.name: s for s in PUBLIC_SUITES}
POPOTO_RULES = rules_record("popoto").to_json()
"""A dataset report's envelope `rules`, as a run under `--haystack-rules popoto` writes it."""


LONGMEMEVAL_S = {"path": "/data/renamed.json.xz", "sha256": next(iter(PUBLIC["longmemeval-s"].files[0].digests))}
"""A whole LongMemEval-S run's input, as the envelope records it (a file of any name with its digest)."""


def _as(report: dict[str, Any], *, system: dict[str, Any], backend: str, mode: str, **fields: Any) -> dict[str, Any]:
    """`report` as a run of another system, backend and mode would have written it."""
    copy = json.loads(json.dumps(report))
    (sheet,) = copy["scores"].values()
    copy |= {"system": system, "not_applicable": None, "modes": [mode], "scores": {mode: sheet}, **fields}
    copy["backend"]["backend"] = backend
    return copy


@pytest.fixture(scope="module")
def board(report_of_kind: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("leaderboard")
    beliefs = json.loads(report_of_kind["beliefs"].read_text())
    dataset = json.loads(report_of_kind["haystack"].read_text())
    lifecycle = json.loads(report_of_kind["lifecycle"].read_text())
    for report in (beliefs, dataset, lifecycle):
        assert "system" not in report or report["system"]["name"] == "reference"
        report.pop("system", None)  # as reports from before systems: of the reference system
    dataset |= {"inputs": [LONGMEMEVAL_S], "settings": {**dataset["settings"], "limit": None, "sample": None}}
    mem0_beliefs = _as(beliefs, system={"name": "mem0"}, backend="embedded", mode="bm25")
    mem0_beliefs["scores"]["bm25"]["overall"]["pass_rate"] = 0.25
    built = {
        "beliefs": beliefs,
        "dataset": dataset,
        "lifecycle": lifecycle,
        "mem0-beliefs": mem0_beliefs,
        "popoto-dataset-harness": _as(dataset, system=POPOTO, backend="redis", mode="hybrid"),
        "popoto-dataset": _as(dataset, system=POPOTO, backend="redis", mode="hybrid", rules=POPOTO_RULES),
        "popoto-dataset-bm25": _as(dataset, system=POPOTO, backend="redis", mode="bm25", rules=POPOTO_RULES),
        "popoto-lifecycle": _as(
            lifecycle,
            system=POPOTO,
            backend="redis",
            mode="hybrid",
            not_applicable="the lifecycle kind runs only on the reference system",
        ),
    }
    paths = []
    for name, report in built.items():
        (path := root / f"{name}.json").write_text(json.dumps(sealed(report)))  # as its run would have
        paths.append(str(path))
    assert harness(root, "leaderboard", *paths, "--out", str(root / "out")) == 0
    (markdown,) = (root / "out").glob("leaderboard-2*.md")
    written = {ext: markdown.with_suffix(f".{ext}") for ext in ("md", "json", "png", "html")}
    return {"reports": built, "files": written, "out": root / "out"}


def _row(board: dict[str, Any], backend: str, system: str, mode: str) -> dict[str, Any]:
    data = json.loads(board["files"]["json"].read_text())
    (row,) = [r for r in data["backends"][backend] if (r["system"], r["mode"]) == (system, mode)]
    return row


def test_every_file_is_written_with_its_latest_copy(board: dict[str, Any]) -> None:
    for ext, path in board["files"].items():
        assert path.is_file(), ext
        assert (board["out"] / f"leaderboard-latest.{ext}").read_bytes() == path.read_bytes()
    assert board["files"]["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _key(board: dict[str, Any], suite: str, rules: str) -> str:
    data = json.loads(board["files"]["json"].read_text())
    (key,) = [c["key"] for c in data["columns"] if (c["suite"], c["rules"]) == (suite, rules)]
    return str(key)


def test_rows_are_systems_per_backend_with_each_columns_main_measure(board: dict[str, Any]) -> None:
    reports = board["reports"]
    data = json.loads(board["files"]["json"].read_text())
    assert sorted(data["backends"]) == ["embedded", "redis"]
    assert [(r["system"], r["mode"]) for r in data["backends"]["embedded"]] == [("reference", "bm25"), ("mem0", "bm25")]
    assert [(r["system"], r["mode"]) for r in data["backends"]["redis"]] == [("popoto", "hybrid"), ("popoto", "bm25")]
    suite = _key(board, reports["beliefs"]["suite"], "system-provides-tiers")
    assert _row(board, "embedded", "reference", "bm25")["cells"][suite] == {
        "pass_rate": reports["beliefs"]["scores"]["bm25"]["overall"]["pass_rate"]
    }
    assert _row(board, "embedded", "mem0", "bm25")["cells"][suite] == {"pass_rate": 0.25}
    dataset_suite = _key(board, "longmemeval-s-session", "popoto")
    overall = reports["dataset"]["scores"]["bm25"]["overall"]
    assert _row(board, "redis", "popoto", "hybrid")["cells"][dataset_suite] == {
        "session/recall_any@5": overall["session/recall_any@5"],
        "session/mrr": overall["session/mrr"],
    }
    lifecycle_suite = _key(board, reports["lifecycle"]["suite"], "harness")
    popoto = _row(board, "redis", "popoto", "hybrid")
    assert lifecycle_suite not in popoto["cells"]
    assert popoto["not_applicable"] == {lifecycle_suite: "the lifecycle kind runs only on the reference system"}


def test_public_suites_are_ranked_apart_from_the_built_in_ones(board: dict[str, Any]) -> None:
    """The dataset run whose file has LongMemEval-S's digest is that public suite whatever the file
    is called, in a ranked table of its own with every engine's rows; the built-in suites are a
    section of their own, per engine, not ranked; a rebuilt file's caveat is said."""
    data = json.loads(board["files"]["json"].read_text())
    public = {c["key"]: c["public"] for c in data["columns"] if c["public"] is not None}
    assert sorted(public) == ["longmemeval-s-session · harness", "longmemeval-s-session · popoto"]
    assert {p["name"] for p in public.values()} == {"longmemeval-s"}
    markdown = board["files"]["md"].read_text()
    head, _, rest = markdown.partition("## Built-in and other suites (regression tests, not ranked)")
    assert "| system | mode | engine | LongMemEval-S (session) · harness | LongMemEval-S (session) · popoto |" in head
    ranked = [line.split(" | ")[:3] for line in head.splitlines() if line.startswith("| popoto") or "pipeline" in line]
    assert ranked[0] == ["| popoto test", "hybrid", "redis"]  # two public columns before one
    assert "499 of the 500 questions" in head
    assert "beliefs" not in head.partition("## Public suites")[2]
    assert "### embedded" in rest
    assert "LongMemEval" not in rest.partition("## Published figures")[0]


def test_published_figures_sit_beside_ours_in_their_mode(board: dict[str, Any]) -> None:
    """Each row gets the figure its system publishes in the row's mode under the column's rules:
    Popoto's hybrid figure beside its hybrid row, its BM25 figure beside its bm25 row (never the
    hybrid one), both in the column of Popoto's rules only (its run under the harness's rules,
    in the harness column, has none beside it)."""
    suite = "longmemeval-s-session"
    figures = json.loads(PUBLISHED.read_text())["figures"]
    popoto = {f["mode"]: f for f in figures if (f["system"], f["suite"]) == ("popoto", suite)}
    assert sorted(popoto) == ["bm25", "hybrid"]
    assert {f["rules"] for f in popoto.values()} == {"popoto"}
    for mode, figure in popoto.items():
        assert _row(board, "redis", "popoto", mode)["published"] == {f"{suite} · popoto": figure["measures"]}
    assert f"{suite} · harness" in _row(board, "redis", "popoto", "hybrid")["cells"]
    assert _row(board, "embedded", "reference", "bm25")["published"] == {}
    markdown = board["files"]["md"].read_text()
    ours = board["reports"]["dataset"]["scores"]["bm25"]["overall"]
    r5, mrr = f"{ours['session/recall_any@5']:.3f}", f"{ours['session/mrr']:.3f}"
    assert f"| popoto test | hybrid | redis | {r5} · {mrr} | {r5} / 0.986 · {mrr} / 0.931 |" in markdown
    assert f"| popoto test | bm25 | redis | – | {r5} / 0.952 · {mrr} / 0.899 |" in markdown
    assert "Popoto's README" in markdown


def test_a_suite_of_another_content_never_meets_the_published_figures(board: dict[str, Any], tmp_path: Path) -> None:
    """A dataset run named as LongMemEval-S whose file differs is another suite: no figure beside it."""
    changed = board["reports"]["popoto-dataset"] | {"inputs": [{"path": "longmemeval_s.json.xz", "sha256": "0" * 64}]}
    (path := tmp_path / "changed.json").write_text(json.dumps(sealed(changed)))
    assert harness(tmp_path, "leaderboard", str(path), "--out", str(tmp_path / "out")) == 0
    data = json.loads((tmp_path / "out" / "leaderboard-latest.json").read_text())
    assert [c["public"] for c in data["columns"]] == [None]
    ((row,),) = data["backends"].values()
    assert row["published"] == {}
    assert any("longmemeval_s.json.xz differ" in note for note in data["notes"])


def test_published_figures_use_the_measures_our_reports_score() -> None:
    """A figure beside ours must have our measure's definition: its names are our score sheet's."""
    pmb = set(summary([PmbItem(True, "", 1.0, 1.0, 0.0)]))
    for figure in json.loads(PUBLISHED.read_text())["figures"]:
        assert figure["source"]
        assert figure["setup"]
        assert figure["suite"].rpartition("-")[0] in PUBLIC or figure["suite"] in PUBLIC
        for name in figure["measures"]:
            level, _, measure = name.rpartition("/")
            granularity = figure["suite"].rpartition("-")[2]
            if figure["kind"] == "beliefs":  # PrecisionMemBench's own measures, as a run under its rules sheets them
                assert (level, measure in pmb) == (f"pmb-{granularity}", True), name
            elif figure["kind"] == "lifecycle":  # Mnemonic's, as a lifecycle run's overall holds them
                assert name in (*RANKING, "noise_suppression", "signal_retention"), name
            elif figure["kind"] == "conversation":  # Acervo's category scores
                assert name.removeprefix(boards.CATEGORY) in {c.value for c in Category}, name
            elif figure["kind"] == "code-tasks":
                assert name in ("recall", "recall_fixed"), name
            else:
                assert name == "p50_ms" or (level == granularity and measure in metric_names()), name


def test_a_later_report_replaces_an_earlier_cell(board: dict[str, Any], tmp_path: Path) -> None:
    beliefs = board["reports"]["beliefs"]
    later = json.loads(json.dumps(beliefs))
    later["scores"]["bm25"]["overall"]["pass_rate"] = 0.5
    paths = [tmp_path / "earlier.json", tmp_path / "later.json"]
    for path, report in zip(paths, (beliefs, later), strict=True):
        path.write_text(json.dumps(sealed(report)))
    assert harness(tmp_path, "leaderboard", *map(str, paths), "--out", str(tmp_path / "out")) == 0
    data = json.loads((tmp_path / "out" / "leaderboard-latest.json").read_text())
    (row,) = data["backends"]["embedded"]
    ((key, cell),) = row["cells"].items()
    assert key.startswith(f"{beliefs['suite']} · system-provides-tiers · ")
    assert cell == {"pass_rate": 0.5}


def test_not_a_report_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "other.json").write_text("{}")
    assert harness(tmp_path, "leaderboard", str(tmp_path / "other.json"), "--out", str(tmp_path / "out")) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"harness: error: {tmp_path / 'other.json'}: not a harness run report (no report envelope)"
    ]
    assert not (tmp_path / "out").exists()


def test_the_leaderboard_page_in_a_browser(board: dict[str, Any], browser: Browser, artifacts: Path) -> None:
    """The page shows what the Markdown shows: the public suites ranked in one table of every
    engine's rows, `ours / published` in one cell, and the built-in suites apart, per engine."""
    browser.events.clear()
    browser.open(board["files"]["html"])
    public = browser.evaluate(
        "[...document.querySelectorAll('table[data-section=public] tr.entry')].map((tr) =>"
        " [tr.dataset.system, tr.dataset.mode, tr.dataset.backend])"
    )
    markdown = board["files"]["md"].read_text()
    ranked = markdown.partition("## Public suites")[2].partition("## Built-in")[0]
    rows = [line.split(" | ") for line in ranked.splitlines() if line.startswith("| ") and " | engine | " not in line]
    assert public == [[row[0].removeprefix("| ").split(" ")[0], row[1], row[2]] for row in rows]
    assert public[0] == ["popoto", "hybrid", "redis"]
    suite = "longmemeval-s-session · popoto"
    cell = browser.evaluate(
        'document.querySelector(\'table[data-section=public] tr.entry[data-system="popoto"][data-mode="hybrid"]'
        f' td[data-suite="{suite}"]\').innerText'
    )
    ((_, _, _, _, in_markdown),) = [row for row in rows if row[:2] == ["| popoto test", "hybrid"]]
    assert cell.strip() == in_markdown.strip(" |")
    assert "/ 0.986" in cell
    others = browser.evaluate(
        "[...document.querySelectorAll('table[data-section=others]')].map((t) => [t.dataset.backend,"
        " [...t.querySelectorAll('thead th')].map((th) => th.innerText).join(' ')])"
    )
    assert [backend for backend, _ in others] == ["embedded", "redis"]
    assert all("LongMemEval" not in head for _, head in others)
    assert browser.evaluate("document.querySelectorAll('#chart svg').length") == 1
    browser.screenshot(artifacts / "leaderboard.png")
    assert browser.errors() == []


@pytest.mark.parametrize(
    ("kind", "main"),
    [
        ("beliefs", ("pass_rate",)),
        ("haystack", ("session/recall_any@5", "session/mrr")),
        ("lifecycle", ("precision", "recall")),
        ("code-tasks", ("recall",)),
        ("conversation", ("pass_rate",)),
    ],
)
def test_a_column_shows_the_main_measures_the_report_carries_and_a_report_from_before_them_its_kinds(
    report_of_kind: dict[str, Path], kind: str, main: tuple[str, ...]
) -> None:
    report = json.loads(report_of_kind[kind].read_text())
    before = {k: v for k, v in report.items() if k != "view"}
    for each in (report, before):
        (column,) = boards.board([Compared(Path(f"{kind}.json"), each)], []).columns
        assert column.measures == main


def test_a_column_is_named_by_the_envelopes_rules_alone(report_of_kind: dict[str, Path]) -> None:
    """A body field naming other rules (a belief report's `meta.context_rules`) is not read: the
    envelope's record is the one a column takes."""
    report = json.loads(report_of_kind["beliefs"].read_text())
    report["meta"]["context_rules"] = {"name": "precisionmembench"}
    report["rules"] = rules_record("precisionmembench-vector").to_json()
    (column,) = boards.board([Compared(Path("beliefs.json"), report)], []).columns
    assert column.rules == "precisionmembench-vector"


def _public(report: dict[str, Any], suite: str, rules: str, mode: str) -> dict[str, Any]:
    """`report` as a whole run of a peer's public suite under its rules, in `mode`, would have written it."""
    copy = json.loads(json.dumps(report))
    (sheet,) = copy["scores"].values()
    copy.pop("system", None)
    inputs = [{"path": f"/peer/{f.name}", "sha256": next(iter(f.digests))} for f in PUBLIC[suite].files]
    settings = {**copy["settings"], "limit": None}
    return (
        copy
        | {"inputs": inputs, "settings": settings, "rules": rules_record(rules).to_json(), "modes": [mode]}
        | {"scores": {mode: sheet}}
    )


def test_mnemonics_column_shows_its_measures_beside_its_baseline_1(report_of_kind: dict[str, Path]) -> None:
    """Under Mnemonic's rules the reference stands in for Mnemonic's pipeline: its hybrid row meets
    BASELINE-1's `Mnemonic (full)` figures; noise suppression and signal retention, which BASELINE-1
    does not publish, stand alone."""
    report = _public(
        json.loads(report_of_kind["lifecycle"].read_text()), "mnemonic-benchmark-quality", "mnemonic-8ecf3ab", "hybrid"
    )
    overall = report["scores"]["hybrid"]["overall"]
    overall |= {"precision": 0.45, "recall": 0.932, "mrr": 0.85, "ndcg": 0.85, "noise_suppression": 0.98}
    overall |= {"signal_retention": 1.0}
    built = boards.board([Compared(Path("lifecycle.json"), report)], boards.published_figures())
    (column,) = built.public
    assert column.measures == ("precision", "recall", "mrr", "ndcg", "noise_suppression", "signal_retention")
    (row,) = built.backends[report["backend"]["backend"]]
    assert (
        boards.cell_text(built, row, column)
        == "0.450 / 0.450 · 0.932 / 0.944 · 0.850 / 0.842 · 0.850 / 0.841 · 0.980 · 1.000"
    )


def test_acervos_column_is_its_category_scores_and_its_figures_are_listed(report_of_kind: dict[str, Path]) -> None:
    """A category's score comes from the sheet's categories (Acervo's public numbers); Acervo runs
    on no engine here, so its own figures are listed with their source, in no row."""
    report = _public(json.loads(report_of_kind["conversation"].read_text()), "acervo", "acervo-v0.5", "bm25")
    report["scores"]["bm25"]["categories"] = {"RESOLVE": {"score": 11 / 13}, "GROUND": {"score": 1.0}}
    built = boards.board([Compared(Path("conversation.json"), report)], boards.published_figures())
    (column,) = built.public
    assert column.measures == ("category:RESOLVE", "category:GROUND")
    (row,) = built.backends[report["backend"]["backend"]]
    assert boards.cell_text(built, row, column) == "0.846 · 1.000"
    assert [p.system for p in built.listed] == ["acervo"]
    markdown = boards.leaderboard_markdown(built)
    assert "RESOLVE · GROUND" in markdown
    assert "RESOLVE 0.85, GROUND 1, RECALL 0.67, FOCUS 1, ADAPT 0.89" in markdown


def test_nano_brains_column_says_its_regression_rules_verdict(report_of_kind: dict[str, Path]) -> None:
    """A code-task run of nano-brain's tasks held to their baseline says per mode whether it
    regressed by nano-brain's rule: under the baseline's overall by more than 0.001."""
    report = _public(
        json.loads(report_of_kind["code-tasks"].read_text()), "nano-brain-capability", "nano-brain-1", "bm25"
    )
    report["summary"] = {
        "bm25": {"overall": 0.873, "baseline": {"overall": 0.875, "delta": -0.002, "regression": True}},
        "vector": {"overall": 0.874, "baseline": {"overall": 0.875, "delta": -0.001, "regression": False}},
    }
    built = boards.board([Compared(Path("code.json"), report)], boards.published_figures())
    engine, shown = report["backend"]["backend"], system_label(report).text
    assert [n for n in built.notes if "baseline" in n] == [
        f"nano-brain capability: {shown} bm25 on {engine}: 0.873 against the baseline's "
        "0.875 (-0.002), a regression under the nano-brain-1 rules",
        f"nano-brain capability: {shown} vector on {engine}: 0.874 against the baseline's "
        "0.875 (-0.001), no regression under the nano-brain-1 rules",
    ]


def test_mnemonics_column_says_each_modes_overall_grade(report_of_kind: dict[str, Path]) -> None:
    """Mnemonic's overall grade is a verdict, not a number: each mode's is said under the table."""
    report = _public(
        json.loads(report_of_kind["lifecycle"].read_text()), "mnemonic-benchmark-quality", "mnemonic-8ecf3ab", "bm25"
    )
    report["summary"] = {"bm25": {"grade": "FAIL", "grades": {"precision": "FAIL", "mrr": "PASS", "ndcg": "WARN"}}}
    built = boards.board([Compared(Path("lifecycle.json"), report)], [])
    engine, shown = report["backend"]["backend"], system_label(report).text
    assert [n for n in built.notes if "grade" in n] == [
        f"Mnemonic benchmark-quality: {shown} bm25 on {engine}: overall grade FAIL under the mnemonic-8ecf3ab rules "
        "(precision FAIL, MRR PASS, nDCG WARN)"
    ]
