"""The baseline store: safe file names, what a freeze writes and replaces, what a check reads and appends."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import MappingProxyType

import pytest

from harness import __version__
from harness.baselines import (
    BadBaseline,
    BaselineKey,
    BaselineStore,
    MissingBaseline,
    check,
    freeze,
    history,
    run_gate,
    slug,
    stored_lines,
)
from harness.baselines.history import FILE_NAME
from harness.models.scoresheet import CaseScore, ScoreSheet

KEY = BaselineKey("builtin", "embedded", "bm25")
SHEET = ScoreSheet(
    {"pass_rate": 1.0, "recall": 0.75},
    {"alias": {"pass_rate": 1.0}},
    {"alias-01": CaseScore(True), "q7": CaseScore(score=0.5)},
)
SETTINGS = {"fields": {"name": 1.0, "aliases": 2.0}, "rrf_k": 60}


@pytest.mark.parametrize("name", ["builtin", "longmemeval-s", "locomo", "lifecycle.v2"])
def test_a_safe_name_is_its_own_slug(name: str) -> None:
    assert slug(name) == name


@pytest.mark.parametrize(
    "name",
    ["tenure:/abs/path", "tenure@paper:../x", "..", ".", "/", "Builtin", "a b", "x" * 300, "ünï", "a\x00b"],
)
def test_an_unsafe_name_becomes_a_plain_file_name_with_its_hash(name: str) -> None:
    made = slug(name)
    assert made != name
    assert all(ch.isascii() and (ch.isalnum() or ch in "._-") for ch in made)
    assert made not in {"", ".", ".."}
    assert not made.startswith((".", "-"))
    assert len(made) <= 71  # 60 characters of the name, a dash, 10 of its hash


def _log(tmp_path: Path) -> Path:
    """The run's history file: beside its reports, apart from the baselines."""
    return tmp_path / "reports" / FILE_NAME


def test_names_that_clean_to_the_same_prefix_get_different_slugs() -> None:
    names = ["tenure:/a/b", "tenure:/a-b", "tenure:/A/b", "tenure-a-b"]
    assert len({slug(n) for n in names}) == len(names)


DOCS = Path(__file__).resolve().parents[2] / "docs"
URL_SYSTEM = "http:http://127.0.0.1:8080"
"""The system the docs' examples run (`--system http:http://127.0.0.1:8080`)."""


def test_the_baseline_file_names_the_docs_show_are_the_ones_a_freeze_writes(tmp_path: Path) -> None:
    """Every `embedded-bm25...json` the docs show is the file of a built-in suite's baseline for some
    system, as a freeze names it; the HTTP system's (its hash too) is shown where the docs key by system."""
    store = BaselineStore(tmp_path)
    written = {
        system: store.freeze(BaselineKey("builtin", "embedded", "bm25", system), SHEET, SETTINGS).path
        for system in ("reference", "popoto", "mem0", URL_SYSTEM)
    }
    assert all(path.parent == tmp_path / "builtin" for path in written.values())
    docs = {page.name: page.read_text(encoding="utf-8") for page in DOCS.glob("*.md")}
    shown = {name for text in docs.values() for name in re.findall(r"(embedded-bm25[^`/\s]*\.json)`", text)}
    assert shown, "no page shows a baseline file name: this test checks nothing"
    assert shown <= {path.name for path in written.values()}
    assert written[URL_SYSTEM].name in docs["systems.md"]
    assert f"baselines/builtin/{written[URL_SYSTEM].name}" in docs["ci-action.md"]
    for name in ("tenure:/abs/path", URL_SYSTEM):
        assert f"`{name}`: `{slug(name)}`" in docs["baselines.md"]


def test_an_absolute_suite_path_stays_under_the_root(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    path = store.path(BaselineKey("tenure:/etc/passwd/../..", "embedded", "bm25"))
    assert path.parent.parent == tmp_path
    assert path.name == "embedded-bm25.json"


def test_freeze_writes_what_load_reads(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    result = freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    assert result.frozen.written
    assert result.lines() == [f"baseline {KEY}: frozen in {tmp_path / 'builtin' / 'embedded-bm25.json'} (new)"]
    loaded = store.load(KEY)
    assert loaded.scores == SHEET
    assert loaded.settings == SETTINGS
    assert loaded.harness_version == __version__
    data = json.loads(store.path(KEY).read_text())
    assert data["cases"] == {"alias-01": {"passed": True}, "q7": {"score": 0.5}}
    assert (data["suite"], data["backend"], data["mode"]) == ("builtin", "embedded", "bm25")


def test_a_check_never_rewrites_the_baseline(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    before = store.path(KEY).read_bytes()
    worse = ScoreSheet({"pass_rate": 0.5, "recall": 0.75}, SHEET.categories, SHEET.cases)
    assert not check(store, KEY, worse, SETTINGS, history_file=_log(tmp_path)).passed
    better = ScoreSheet({"pass_rate": 1.0, "recall": 0.9}, SHEET.categories, SHEET.cases)
    assert check(store, KEY, better, SETTINGS, history_file=_log(tmp_path)).passed
    assert store.path(KEY).read_bytes() == before


def test_a_missing_baseline_is_an_error_not_a_pass(tmp_path: Path) -> None:
    with pytest.raises(MissingBaseline, match="no baseline for builtin / embedded / vector") as raised:
        check(
            BaselineStore(tmp_path),
            BaselineKey("builtin", "embedded", "vector"),
            SHEET,
            SETTINGS,
            history_file=_log(tmp_path),
        )
    assert raised.value.exit_code == 2
    assert "\n" not in str(raised.value)
    assert not _log(tmp_path).exists()


def test_refreezing_the_same_scores_leaves_the_file_alone(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    before = store.path(KEY).read_bytes()
    again = freeze(store, KEY, SHEET, dict(SETTINGS), history_file=_log(tmp_path))
    assert not again.frozen.written
    assert store.path(KEY).read_bytes() == before
    assert "unchanged" in again.lines()[0]
    assert [e["event"] for e in history.read(_log(tmp_path))] == ["freeze"]


def test_a_freeze_over_a_baseline_says_what_changed(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    new = ScoreSheet({"pass_rate": 0.5, "recall": 0.75}, SHEET.categories, {"alias-01": CaseScore(False)})
    result = freeze(store, KEY, new, {**SETTINGS, "fields": {"content": 1.0}}, history_file=_log(tmp_path))
    assert result.frozen.written
    assert store.load(KEY).scores == new
    lines = result.lines()
    assert "replacing the one of" in lines[0]
    assert (
        "cases: 1 regressed, 1 missing, 0 improved, 0 new; overall and category measures: 1 regressed, 0 missing"
        in lines[0]
    )
    assert lines[1:] == [
        "  regressed  overall pass_rate: 1.0000 -> 0.5000",
        "  regressed  case alias-01 passed: passed -> failed",
        "  missing    case q7: in the baseline, not in this run",
        '  setting fields: {"aliases": 2.0, "name": 1.0} -> {"content": 1.0}',
    ]


def test_the_history_records_each_freeze_and_check(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    worse = ScoreSheet(SHEET.overall, SHEET.categories, {"alias-01": CaseScore(False), "q7": CaseScore(score=0.5)})
    check(store, KEY, worse, SETTINGS, history_file=_log(tmp_path))
    check(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    entries = history.read(_log(tmp_path))
    assert [(e["event"], e.get("passed")) for e in entries] == [("freeze", None), ("check", False), ("check", True)]
    assert entries[1]["regressed"] == ["case alias-01 passed"]
    assert entries[2]["regressed"] == []
    assert all(e["suite"] == "builtin" and e["mode"] == "bm25" for e in entries)


def test_a_corrupt_baseline_is_one_line_naming_the_file(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    path = store.path(KEY)
    data = json.loads(path.read_text())
    data["overall"]["recall"] = "high"
    path.write_text(json.dumps(data))
    with pytest.raises(BadBaseline, match=r"embedded-bm25\.json: overall\.recall") as raised:
        store.load(KEY)
    assert "\n" not in str(raised.value)
    path.write_text('{"format": 1,')
    with pytest.raises(BadBaseline, match=r"embedded-bm25\.json"):
        store.load(KEY)


def test_a_baseline_in_another_keys_file_is_refused(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    other = BaselineKey("builtin", "embedded", "vector")
    store.path(other).write_bytes(store.path(KEY).read_bytes())
    with pytest.raises(BadBaseline, match="holds builtin / embedded / bm25"):
        store.load(other)


def test_a_run_gate_checks_every_sheet_and_lists_the_failed_keys(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    vector = BaselineKey("builtin", "embedded", "vector")
    frozen = run_gate(store, {KEY: SHEET, vector: SHEET}, SETTINGS, freeze_run=True, history_file=_log(tmp_path))
    assert frozen.failed == []
    assert [line.split(":")[0] for line in frozen.lines] == [f"baseline {KEY}", f"baseline {vector}"]
    worse = ScoreSheet({"pass_rate": 0.9, "recall": 0.75}, SHEET.categories, SHEET.cases)
    checked = run_gate(store, {KEY: SHEET, vector: worse}, SETTINGS, freeze_run=False, history_file=_log(tmp_path))
    assert checked.failed == [vector]
    assert checked.lines == [
        checked.lines[0],
        checked.lines[1],
        "  regressed  overall pass_rate: 1.0000 -> 0.9000",
    ]
    assert checked.lines[0].startswith(f"baseline {KEY}: passed")
    assert checked.lines[1].startswith(f"baseline {vector}: FAILED")


def test_a_run_gate_with_one_missing_baseline_checks_nothing(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    hybrid = BaselineKey("builtin", "embedded", "hybrid")
    with pytest.raises(MissingBaseline, match="builtin / embedded / hybrid"):
        run_gate(store, {KEY: SHEET, hybrid: SHEET}, SETTINGS, freeze_run=False, history_file=_log(tmp_path))
    assert [e["event"] for e in history.read(_log(tmp_path))] == ["freeze"]


def test_stored_lines_list_every_baseline_with_its_overall_scores(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    assert stored_lines(store) == [f"no baselines in {tmp_path}"]
    freeze(store, KEY, SHEET, SETTINGS, history_file=_log(tmp_path))
    freeze(
        store,
        BaselineKey("tenure:/x/y", "redis", "bm25"),
        ScoreSheet({"pass_rate": 0.25}),
        SETTINGS,
        history_file=_log(tmp_path),
    )
    lines = stored_lines(store)
    assert len(lines) == 2
    assert lines[0].startswith(f"{KEY}: frozen ")
    assert "2 cases; pass_rate=1.0000 recall=0.7500" in lines[0]
    assert lines[1].startswith("tenure:/x/y / redis / bm25: frozen ")
    assert "0 cases; pass_rate=0.2500" in lines[1]


def test_settings_are_stored_as_json_holds_them(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    live = {"fields": MappingProxyType({"name": 1.0}), "file": tmp_path / "x.json", "modes": ("bm25",)}
    freeze(store, KEY, SHEET, live, history_file=_log(tmp_path))
    assert store.load(KEY).settings == {"fields": {"name": 1.0}, "file": str(tmp_path / "x.json"), "modes": ["bm25"]}
    assert (
        check(store, KEY, SHEET, live, history_file=_log(tmp_path)).settings == ()
    )  # the live form and the stored form are the same settings
