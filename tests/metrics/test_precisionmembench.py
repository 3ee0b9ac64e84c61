"""PrecisionMemBench's own measures (`harness/metrics/precisionmembench.py`), each derived here from
a case computed by hand with the definitions of its code at ec8347b (the module's docstring cites
the files), and a run under its rules reporting them (on its fixtures from ../shared, skipped
without them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.metrics.precisionmembench import (
    SESSION_CATEGORY,
    STRUCTURAL_CATEGORIES,
    PmbItem,
    PmbPassType,
    session_item,
    static_item,
    summary,
)
from tests.reports.pages import harness

PMB = Path(__file__).parents[3] / "shared" / "datasets" / "precisionmembench"


def test_static_precision_counts_hits_in_the_relevant_list_as_a_set() -> None:
    """Expected {a, b}; relevant a, c, c, d is the set {a, c, d}: 1 hit, precision 1/3, recall 1/2."""
    item = static_item(
        passed=False,
        category="Alias resolution",
        should_only_include=["a", "b"],
        must_include=[],
        pinned_in_seed=[],
        relevant=["a", "c", "c", "d"],
    )
    assert item.precision == pytest.approx(1 / 3)
    assert item.recall == pytest.approx(1 / 2)


@pytest.mark.parametrize(
    ("only", "relevant", "precision", "recall"),
    [
        ([], [], None, None),  # nothing expected, nothing found
        ([], ["x"], 0.0, None),  # nothing expected, something found: 0 hits over 1
        (["a"], [], 0.0, 0.0),  # something expected, nothing found: precision 0, not None
    ],
)
def test_static_precision_and_recall_when_a_side_is_empty(
    only: list[str], relevant: list[str], precision: float | None, recall: float | None
) -> None:
    item = static_item(
        passed=False, category="", should_only_include=only, must_include=[], pinned_in_seed=[], relevant=relevant
    )
    assert (item.precision, item.recall) == (precision, recall)


def test_static_must_include_leaves_the_seeds_pinned_beliefs_out() -> None:
    """No `shouldOnlyInclude`: expected = mustInclude {p, a} less pinned {p} = {a}; relevant a, x:
    precision 1/2, recall 1/1."""
    item = static_item(
        passed=True,
        category="",
        should_only_include=None,
        must_include=["p", "a"],
        pinned_in_seed=["p"],
        relevant=["a", "x"],
    )
    assert (item.precision, item.recall) == (0.5, 1.0)


@pytest.mark.parametrize(
    ("precision", "category", "kind"),
    [
        (0.5, "Alias resolution", PmbPassType.ACTIVE),
        (0.0, "Scope disambiguation", PmbPassType.STRUCTURAL),  # precision 0 is not active
        (None, "Persona prelude content", PmbPassType.STRUCTURAL),
        (None, "Alias resolution", PmbPassType.TRIVIALLY_EMPTY),
        (None, SESSION_CATEGORY, PmbPassType.TRIVIALLY_EMPTY),
    ],
)
def test_a_pass_is_active_above_zero_precision_else_structural_by_category(
    precision: float | None, category: str, kind: PmbPassType
) -> None:
    assert PmbItem(True, category, precision, None).pass_type is kind
    assert PmbItem(False, category, precision, None).pass_type is None


def test_session_hits_count_the_pinned_facts_and_drift_is_one_minus_precision() -> None:
    """Gold {a, p}; relevant a, x, y; pinned p: hits 2 (a relevant, p pinned), precision 2/3 (over
    the relevant list), recall 2/2, drift 1/3."""
    item = session_item(
        passed=False, should_only_include=["a", "p"], must_include=[], relevant=["a", "x", "y"], pinned=["p"]
    )
    assert item.precision == pytest.approx(2 / 3)
    assert item.recall == 1.0
    assert item.drift == pytest.approx(1 / 3)
    assert item.category == SESSION_CATEGORY


def test_a_turn_with_an_empty_relevant_list_has_no_precision_and_drift_zero() -> None:
    item = session_item(passed=True, should_only_include=None, must_include=["a"], relevant=[], pinned=["a"])
    assert (item.precision, item.recall, item.drift) == (None, 1.0, 0.0)


def test_the_summary_means_over_defined_values_and_counts_passes_by_type() -> None:
    items = [
        PmbItem(True, "Alias resolution", 1.0, 1.0),
        PmbItem(True, "Scope disambiguation", None, None),
        PmbItem(False, "Alias resolution", 0.0, 0.5),
        PmbItem(True, "Alias resolution", None, None),
    ]
    assert summary(items) == {
        "items": 4.0,
        "passed": 3.0,
        "pass_rate": 0.75,
        "precision": 0.5,
        "recall": 0.75,
        "active": 1.0,
        "structural": 1.0,
        "trivially_empty": 1.0,
    }


def _cases() -> list[dict[str, Any]]:
    if not (PMB / "retrieval.cases.json").is_file():
        pytest.skip(f"PrecisionMemBench's fixtures are not in {PMB} (a clone without ../shared)")
    return list(json.loads((PMB / "retrieval.cases.json").read_text()))


def test_the_structural_categories_are_categories_of_its_fixtures() -> None:
    """Each name is spelled as the published cases spell their categories."""
    assert STRUCTURAL_CATEGORIES <= {c.get("category") for c in _cases()}


def test_a_run_under_its_rules_reports_its_measures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference under the vector baseline's adapter on PrecisionMemBench's fixtures, copied to
    a folder of another name: the sheet's `pmb-static/*` and `pmb-session/*` are those the rows
    give by the definitions above, and the leaderboard places the report in PrecisionMemBench's
    columns by the files' digests, where in vector mode it meets the published vector row (whose
    reader asks for every live belief, so the encoder does not decide it: docs/peer-rules.md)."""
    cases = _cases()
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    out, mine = tmp_path / "out", tmp_path / "my-beliefs"
    shutil.copytree(PMB, mine)
    code = harness(
        tmp_path, "run", "--suite", f"tenure:{mine}", "--context-rules", "precisionmembench-vector",
        "-m", "bm25", "-m", "vector", "-b", "embedded", "--out", str(out),
    )  # fmt: skip
    assert code in (0, 1)
    (path,) = [p for p in out.glob("run-*.json") if "latest" not in p.name]
    report = json.loads(path.read_text())
    overall = report["scores"]["bm25"]["overall"]
    static = [c for c in report["cases"] if (c["kind"], c["mode"]) == ("static", "bm25")]
    turns = [c for c in report["cases"] if (c["kind"], c["mode"]) == ("session", "bm25")]
    assert overall["pmb-static/items"] == len(cases) == len(static)
    assert overall["pmb-session/items"] == len(turns)
    assert overall["pmb-static/passed"] == sum(c["passed"] for c in static)
    assert sum(overall[f"pmb-static/{t.value}"] for t in PmbPassType) == overall["pmb-static/passed"]
    drifts = []
    for turn in turns:
        relevant = {r["id"] for r in turn["retrieved"]["relevant"]}
        gold = set(turn["expected"]["relevant"].get("should_only_include") or ())
        hits = len(gold & (relevant | set(turn["retrieved"]["pinned"])))
        drifts.append(1 - hits / len(relevant) if relevant else 0.0)
    assert overall["pmb-session/drift"] == pytest.approx(sum(drifts) / len(drifts))
    assert report["rules"]["name"] == "precisionmembench-vector"
    markdown = path.with_suffix(".md").read_text()
    assert "## Under PrecisionMemBench's definitions" in markdown
    assert "> Public suite: PrecisionMemBench static, its files as published at ec8347b358cc (by their sha256)." in (
        markdown
    )
    assert harness(tmp_path, "leaderboard", str(path), "--out", str(tmp_path / "board")) == 0
    board = (tmp_path / "board" / "leaderboard-latest.md").read_text()
    header = "| system | mode | engine | PrecisionMemBench static · precisionmembench-vector | "
    assert header + "PrecisionMemBench session · precisionmembench-vector |" in board
    assert (
        "| vector | embedded | 11 / 11 · 0.088 / 0.088 · 1.000 / 1.000 | 0 / 0 · 0.086 / 0.086 · 0.914 / 0.914 |"
        in (board)
    )


def test_a_changed_file_is_another_suite_and_the_run_report_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same fixtures with one static case fewer: no public suite's files, and the report says
    which file differs; the leaderboard gives it no public column."""
    cases = _cases()
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    mine, out = tmp_path / "pmb", tmp_path / "out"
    shutil.copytree(PMB, mine)
    (mine / "retrieval.cases.json").write_text(json.dumps(cases[:-1]))
    code = harness(
        tmp_path, "run", "--suite", f"tenure:{mine}", "--context-rules", "precisionmembench-vector",
        "-m", "bm25", "-b", "embedded", "--out", str(out),
    )  # fmt: skip
    assert code in (0, 1)
    (path,) = [p for p in out.glob("run-*.json") if "latest" not in p.name]
    markdown = path.with_suffix(".md").read_text()
    assert "> Public suite: PrecisionMemBench static: retrieval.cases.json differ(s) from the files published at" in (
        markdown
    )
    assert "> Public suite: PrecisionMemBench session, its files as published" in markdown  # its own files are
