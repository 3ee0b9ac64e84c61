"""Reports from others (issue 34): `merge`, `compare` and `leaderboard` gave tracebacks on reports
missing or mistyping a field, recursion errors on deep nesting, read a 100 MB string whole, and
`compare` and `leaderboard` never checked the checksum `merge` checks (a made-up system with pass
rate -5.000 went onto the leaderboard with exit 0; `compare` printed `nan`). Every command now reads
reports through one reader: one line and exit 2 for any report that does not fit; an edited report
only with `--allow-edited`, marked."""

from __future__ import annotations

import json
import sys
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.reports.document import sealed
from tests.conftest import Main
from tests.faults.helpers import one_line, reports, write_suite

Change = Callable[[dict[str, Any]], object]


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The two shard reports of a small belief run in bm25, as `harness run --shard` wrote them."""
    from harness.cli import main

    root = tmp_path_factory.mktemp("reader")
    suite = write_suite(root / "suite", 6, memories=3)
    for index in (1, 2):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(warnings, "showwarning", warnings.showwarning)
            patch.setenv("HF_HUB_OFFLINE", "1")
            out = str(root / "shards")
            patch.setattr(
                sys, "argv", ["harness", "run", "-m", "bm25", "-s", str(suite), "--shard", f"{index}/2", "--out", out]
            )
            with pytest.raises(SystemExit) as exited:
                main()
        assert not exited.value.code
    found = reports(root / "shards", "run-embedded-shard*of2-2*.json")
    assert len(found) == 2
    return found


def _changed(source: Path, target: Path, change: Change, *, seal: bool) -> Path:
    document = json.loads(source.read_text())
    change(document)
    target.write_text(json.dumps(sealed(document) if seal else document), encoding="utf-8")
    return target


def _command(name: str, bad: Path, other: Path, out: Path) -> list[str]:
    """`name` reading `bad` (merge: with the other shard of its run)."""
    return [name, str(bad), *([str(other)] if name == "merge" else []), "--out", str(out)]


def _refused(done: Any, path: Path, *words: str) -> str:
    assert done.returncode == 2, done.stderr
    line = one_line(done.stderr)
    assert line.startswith(f"harness: error: {path}: "), line
    for word in words:
        assert word in line, line
    return line


def _first_case(document: dict[str, Any]) -> dict[str, Any]:
    return document["cases"][0]


ENVELOPE_FAULTS: dict[str, tuple[Change, str]] = {
    "shard.count a string": (lambda d: d["shard"].update(count="2"), "shard.count"),
    "shard.count missing": (lambda d: d["shard"].pop("count"), "shard.count"),
    "system a string": (lambda d: d.update(system="mem0"), "system"),
    "system without a name": (lambda d: d.update(system={"version": "1"}), "system.name"),
    "scores a list": (lambda d: d.update(scores=[]), "scores"),
    "scores missing": (lambda d: d.pop("scores"), "scores"),
    "a score a string": (lambda d: d["scores"]["bm25"]["overall"].update(pass_rate="high"), "pass_rate"),
    "kind a number": (lambda d: d.update(kind=3), "kind"),
}
"""Envelope faults, each sealed again (so the checksum is not what refuses them), with the field the line names."""


@pytest.mark.parametrize("command", ["merge", "compare", "leaderboard"])
@pytest.mark.parametrize("fault", ENVELOPE_FAULTS)
def test_a_missing_or_mistyped_envelope_field_is_one_line(
    harness_main: Main, shards: list[Path], tmp_path: Path, command: str, fault: str
) -> None:
    change, field = ENVELOPE_FAULTS[fault]
    bad = _changed(shards[0], tmp_path / "bad.json", change, seal=True)
    done = harness_main(*_command(command, bad, shards[1], tmp_path / "out"), cwd=tmp_path)
    _refused(done, bad, "not a harness run report", field)
    assert not (tmp_path / "out").exists()


ROW_FAULTS: dict[str, Change] = {
    "cases missing": lambda d: d.pop("cases"),
    "cases an object": lambda d: d.update(cases={"s-0": {}}),
    "case_id missing": lambda d: _first_case(d).pop("case_id"),
    "case_id a list": lambda d: _first_case(d).update(case_id=["s-0"]),
    "passed a string": lambda d: _first_case(d).update(passed="yes"),
    "a row a number": lambda d: d["cases"].append(5),
}


@pytest.mark.parametrize("fault", ROW_FAULTS)
def test_merge_reads_each_row_back_or_says_which_does_not_fit(
    harness_main: Main, shards: list[Path], tmp_path: Path, fault: str
) -> None:
    bad = _changed(shards[0], tmp_path / "bad.json", ROW_FAULTS[fault], seal=True)
    done = harness_main(*_command("merge", bad, shards[1], tmp_path / "out"), cwd=tmp_path)
    _refused(done, bad, "cases")
    assert not (tmp_path / "out").exists()


def _deep(source: Path, target: Path, depth: int) -> Path:
    document = json.loads(source.read_text())
    document["settings"] = "DEEP"
    text = json.dumps(document).replace('"DEEP"', "[" * depth + "]" * depth)
    target.write_text(text, encoding="utf-8")
    return target


@pytest.mark.parametrize("command", ["merge", "compare", "leaderboard"])
def test_deep_nesting_is_refused_before_parsing(
    harness_main: Main, shards: list[Path], tmp_path: Path, command: str
) -> None:
    bad = _deep(shards[0], tmp_path / "deep.json", 100_000)
    done = harness_main(*_command(command, bad, shards[1], tmp_path / "out"), cwd=tmp_path)
    _refused(done, bad, "nested deeper than 64 levels")
    assert "RecursionError" not in done.stderr


def test_a_100_mb_string_is_refused_by_its_size_unread(harness_main: Main, shards: list[Path], tmp_path: Path) -> None:
    """The file is refused by its size: merge held 1.4 GB for it on main; now nothing near its size."""
    big = tmp_path / "big.json"
    head = json.dumps(json.loads(shards[0].read_text()))[:-1] + ', "padding": "'
    with big.open("w", encoding="utf-8") as handle:
        handle.write(head)
        for _ in range(100):
            handle.write("x" * 2**20)
        handle.write('"}')
    for command in ("merge", "compare", "leaderboard"):
        tracemalloc.start()
        try:
            done = harness_main(*_command(command, big, shards[1], tmp_path / "out"), cwd=tmp_path)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        _refused(done, big, "over the limit of 67108864 bytes")
        assert peak < 16 * 2**20, (command, peak)


def test_the_size_limit_is_the_users_to_set(harness_main: Main, shards: list[Path], tmp_path: Path) -> None:
    size = shards[0].stat().st_size
    lower = harness_main("compare", str(shards[0]), "--out", "out", cwd=tmp_path, HARNESS_REPORT_MAX_BYTES="1000")
    _refused(lower, shards[0], f"{size} bytes, over the limit of 1000 bytes")
    exact = harness_main("compare", str(shards[0]), "--out", "out", cwd=tmp_path, HARNESS_REPORT_MAX_BYTES=str(size))
    assert exact.returncode == 0, exact.stderr
    bad = harness_main("compare", str(shards[0]), "--out", "out", cwd=tmp_path, HARNESS_REPORT_MAX_BYTES="lots")
    assert bad.returncode == 2
    assert (
        one_line(bad.stderr) == "harness: error: HARNESS_REPORT_MAX_BYTES='lots': expected a whole number of bytes >= 1"
    )


def _made_up(document: dict[str, Any]) -> None:
    """A made-up system with pass rate -5.000, as an edit by hand would write it."""
    document["system"]["name"] = document["system"]["declared_name"] = "made-up"
    document["scores"]["bm25"]["overall"]["pass_rate"] = -5.0


@pytest.mark.parametrize("command", ["compare", "leaderboard"])
@pytest.mark.parametrize(
    ("change", "words"),
    [
        pytest.param(_made_up, ("edited since the harness wrote it", "--allow-edited"), id="edited"),
        pytest.param(lambda d: d.pop("checksum"), ("no checksum", "--allow-edited"), id="checksum dropped"),
    ],
)
def test_an_edited_report_is_refused(
    harness_main: Main, shards: list[Path], tmp_path: Path, command: str, change: Change, words: tuple[str, ...]
) -> None:
    edited = _changed(shards[0], tmp_path / "edited.json", change, seal=False)
    done = harness_main(command, str(edited), "--out", "out", cwd=tmp_path)
    _refused(done, edited, *words)
    assert not (tmp_path / "out").exists()


def _allowed(harness_main: Main, shards: list[Path], tmp_path: Path, command: str) -> Any:
    """`command --allow-edited` over the made-up edit of the first shard and the second as written."""
    edited = _changed(shards[0], tmp_path / "edited.json", _made_up, seal=False)
    done = harness_main(command, str(edited), str(shards[1]), "--out", "out", "--allow-edited", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done


def test_compare_marks_an_edited_report_it_was_allowed_to_read(
    harness_main: Main, shards: list[Path], tmp_path: Path
) -> None:
    done = _allowed(harness_main, shards, tmp_path, "compare")
    assert "EDITED" in done.stdout
    (markdown,) = (tmp_path / "out").glob("compare-2*.md")
    rows = [line for line in markdown.read_text().splitlines() if line.startswith("| beliefs")]
    assert [("-5.000" in row, "| beliefs (EDITED) |" in row) for row in rows] == [(True, True), (False, False)]
    assert "`edited.json shard 1/2 EDITED`" in markdown.read_text()


def test_the_leaderboard_marks_an_edited_report_it_was_allowed_to_read(
    harness_main: Main, shards: list[Path], tmp_path: Path
) -> None:
    done = _allowed(harness_main, shards, tmp_path, "leaderboard")
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("| made-up ")]
    assert "-5.000 (EDITED)" in row
    (reference,) = [line for line in done.stdout.splitlines() if line.startswith("| reference ")]
    assert "EDITED" not in reference
    board = json.loads((tmp_path / "out" / "leaderboard-latest.json").read_text())
    (made_up,) = [r for r in board["backends"]["embedded"] if r["system"] == "made-up"]
    assert list(made_up["edited"].values()) == ["edited since the harness wrote it (its checksum does not match)"]
    assert 'class="edited"' in (tmp_path / "out" / "leaderboard-latest.html").read_text()


def test_merge_takes_no_edited_shard(harness_main: Main, shards: list[Path], tmp_path: Path) -> None:
    edited = _changed(shards[0], tmp_path / "edited.json", _made_up, seal=False)
    done = harness_main("merge", str(edited), str(shards[1]), "--out", "out", "--allow-edited", cwd=tmp_path)
    assert done.returncode == 2
    assert "--allow-edited" in one_line(done.stderr)  # no such option
    done = harness_main("merge", str(edited), str(shards[1]), "--out", "out", cwd=tmp_path)
    _refused(done, edited, "edited since the harness wrote it", "rerun that shard")


def test_render_draws_an_edited_report_only_when_allowed_and_says_so(
    harness_main: Main, shards: list[Path], tmp_path: Path
) -> None:
    edited = _changed(shards[0], tmp_path / "edited.json", _made_up, seal=False)
    _refused(harness_main("report", "render", str(edited), cwd=tmp_path), edited, "--allow-edited")
    assert not edited.with_suffix(".html").exists()
    done = harness_main("report", "render", str(edited), "--allow-edited", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert 'id="banner-edited"' in edited.with_suffix(".html").read_text()


def _nan_score(document: dict[str, Any]) -> None:
    case = next(iter(document["scores"]["bm25"]["cases"].values()))
    case["score"] = float("nan")


@pytest.mark.parametrize("command", ["compare", "leaderboard", "merge"])
def test_a_nan_score_is_refused_not_printed(
    harness_main: Main, shards: list[Path], tmp_path: Path, command: str
) -> None:
    bad = _changed(shards[0], tmp_path / "nan.json", _nan_score, seal=True)
    assert "NaN" in bad.read_text()
    done = harness_main(*_command(command, bad, shards[1], tmp_path / "out"), cwd=tmp_path)
    _refused(done, bad, "NaN is not JSON")
    assert "nan" not in done.stdout.lower()
