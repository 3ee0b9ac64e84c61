"""`harness run --freeze-baseline / --check-baseline` and `harness baseline ...`, as a user runs them
(through `harness.cli.main`, in process)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.suites.resolve import cases_dir
from tests.conftest import Main
from tests.datasets.builders import longmemeval_records
from tests.faults.helpers import one_line


@pytest.fixture
def folders(tmp_path: Path) -> tuple[str, ...]:
    return ("--baseline-dir", str(tmp_path / "b"), "--out", str(tmp_path / "r"))


def test_run_freeze_then_check_passes_and_a_degraded_setting_fails_naming_the_cases(
    harness_main: Main, tmp_path: Path, folders: tuple[str, ...]
) -> None:
    frozen = harness_main("run", "-b", "embedded", "-m", "bm25", "--freeze-baseline", *folders, cwd=tmp_path)
    assert frozen.returncode == 0, frozen.stderr
    assert (
        f"baseline builtin / embedded / bm25: frozen in {tmp_path / 'b' / 'builtin' / 'embedded-bm25.json'} (new)"
        in (frozen.stdout)
    )
    passed = harness_main("baseline", "check", "-b", "embedded", "-m", "bm25", *folders, cwd=tmp_path)
    assert passed.returncode == 0, passed.stderr
    assert "baseline builtin / embedded / bm25: passed (cases: 0 regressed" in passed.stdout

    degraded = harness_main(
        "run", "-b", "embedded", "-m", "bm25", "--fields", "content", "--check-baseline", *folders, cwd=tmp_path
    )
    assert degraded.returncode == 1
    assert "baseline builtin / embedded / bm25: FAILED" in degraded.stdout
    report = json.loads((tmp_path / "r" / "run-embedded-latest.json").read_text())
    failing = {
        c["case_id"] if c["turn"] is None else f"{c['case_id']}#{c['turn']}" for c in report["cases"] if not c["passed"]
    }
    named = set(re.findall(r"^  regressed  case (\S+) passed: passed -> failed$", degraded.stdout, re.M))
    assert failing
    assert named == failing
    assert '  setting fields: {"aliases": 2.0, "name": 1.0} -> {"content": 1.0}' in degraded.stdout

    shown = harness_main("baseline", "show", "--baseline-dir", str(tmp_path / "b"), cwd=tmp_path)
    assert shown.returncode == 0
    assert shown.stdout.startswith("builtin / embedded / bm25: frozen ")
    history = (tmp_path / "r" / "baseline-history.jsonl").read_text().splitlines()  # beside the reports
    assert [json.loads(line)["event"] for line in history] == ["freeze", "check", "check"]
    assert f"baseline history: {tmp_path / 'r' / 'baseline-history.jsonl'}" in degraded.stdout
    assert [p.name for p in (tmp_path / "b").rglob("*") if p.is_file()] == ["embedded-bm25.json"]


def test_a_check_against_the_committed_baselines_writes_only_beside_its_reports(
    harness_main: Main, tmp_path: Path
) -> None:
    committed = cases_dir() / "baselines"
    before = {p: p.read_bytes() for p in committed.rglob("*") if p.is_file()}
    checked = harness_main(
        "run", "-b", "embedded", "-m", "bm25", "--check-baseline", "--out", str(tmp_path), cwd=tmp_path
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "baseline builtin / embedded / bm25: passed" in checked.stdout
    assert {p: p.read_bytes() for p in committed.rglob("*") if p.is_file()} == before
    (entry,) = map(json.loads, (tmp_path / "baseline-history.jsonl").read_text().splitlines())
    assert (entry["event"], entry["suite"], entry["passed"]) == ("check", "builtin", True)


def test_a_mode_without_a_baseline_is_one_line_and_exit_2(
    harness_main: Main, tmp_path: Path, folders: tuple[str, ...]
) -> None:
    assert (
        harness_main("run", "-b", "embedded", "-m", "bm25", "--freeze-baseline", *folders, cwd=tmp_path).returncode == 0
    )
    missing = harness_main("run", "-b", "embedded", "-m", "vector", "--check-baseline", *folders, cwd=tmp_path)
    assert missing.returncode == 2
    assert one_line(missing.stderr).startswith("harness: error: no baseline for builtin / embedded / vector")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--check-baseline", "--freeze-baseline"), "--check-baseline and --freeze-baseline: pick one"),
        (("--freeze-baseline", "--shard", "1/2"), "--freeze-baseline needs a whole run"),
        (("--check-baseline", "--baseline-dir", "nowhere"), "--check-baseline: no baselines folder nowhere"),
    ],
)
def test_baseline_options_that_cannot_work_fail_before_the_run(
    harness_main: Main, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    result = harness_main("run", "-b", "embedded", "-m", "bm25", "--out", str(tmp_path / "r"), *args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in one_line(result.stderr)
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").glob("run-*"))


def test_a_dataset_run_freezes_and_checks_per_question(
    harness_main: Main, tmp_path: Path, folders: tuple[str, ...]
) -> None:
    records = longmemeval_records()
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(records))
    run = ("run", "--dataset", "longmemeval-s", "--file", str(data), "-b", "embedded", "-m", "bm25", *folders)
    frozen = harness_main(*run, "--freeze-baseline", cwd=tmp_path)
    assert frozen.returncode == 0, frozen.stderr
    assert "baseline longmemeval-s-session / embedded / bm25: frozen in" in frozen.stdout
    baseline = json.loads((tmp_path / "b" / "longmemeval-s-session" / "embedded-bm25.json").read_text())
    assert set(baseline["cases"]) == {"q1", "q3"}  # the abstention question is skipped, as the scoring does
    assert "session/recall_any@5" in baseline["overall"]
    assert harness_main(*run, "--check-baseline", cwd=tmp_path).returncode == 0

    records[0]["answer_session_ids"] = ["filler_2"]  # q1's gold is now a session its question shares no word with
    data.write_text(json.dumps(records))
    failed = harness_main(*run, "--check-baseline", cwd=tmp_path)
    assert failed.returncode == 1
    assert re.search(r"^  regressed  case q1 score: 1\.0000 -> 0\.\d+$", failed.stdout, re.M)
    assert "case q3" not in failed.stdout
