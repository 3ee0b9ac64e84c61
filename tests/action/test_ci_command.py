"""`harness ci`: what the action's inputs may hold (refused in one line before any run), where its
summary and outputs go by default (the runner's files), and that its counts agree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.cli.ci import OUTPUTS_ENV, SUMMARY_ENV, outputs_text, words
from harness.reports.junit import Tally
from tests.faults.helpers import write_suite

HARNESS = str(Path(sys.executable).parent / "harness")
CASES = 5

Main = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def _not_on_a_runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test here writes to the summary or outputs of the job that runs the tests."""
    monkeypatch.delenv(SUMMARY_ENV, raising=False)
    monkeypatch.delenv(OUTPUTS_ENV, raising=False)
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def outputs_of(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines())


def test_an_input_list_is_split_on_spaces_and_line_breaks() -> None:
    assert words(" builtin\n haystack:builtin  ") == ["builtin", "haystack:builtin"]


def test_outputs_leave_the_pass_rate_empty_when_no_case_ran() -> None:
    text = outputs_text(Path("r"), Path("r/junit.xml"), Tally(tests=2, skipped=2), {})
    assert text.splitlines() == [
        "reports=r",
        "junit=r/junit.xml",
        "pass-rate=",
        "regressed-baselines=0",
        "regressed-cases=0",
    ]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--modes", "bm25 bm26"], "unknown mode bm26"),
        (["--summary", ""], "--summary .: a folder, not a file"),
        (["--out", "a\nb"], "--out: a line break"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    done = subprocess.run(
        [HARNESS, "ci", "--no-check-baseline", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, SUMMARY_ENV: "", OUTPUTS_ENV: ""},  # set but empty, as outside a step: no default
    )
    assert done.returncode == 2
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "harness-reports").exists()


def test_on_a_runner_the_summary_and_outputs_go_to_its_files_unless_named(harness_main: Main, tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", CASES)
    runner = {SUMMARY_ENV: str(tmp_path / "step-summary.md"), OUTPUTS_ENV: str(tmp_path / "step-output.txt")}
    for path in runner.values():
        Path(path).write_text("", encoding="utf-8")  # as the runner leaves them for a step
    args = ("ci", "--no-check-baseline", "--suites", str(suite), "--modes", "bm25")

    done = harness_main(*args, cwd=tmp_path, **runner)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "step-summary.md").read_text(encoding="utf-8").startswith("## memory-retrieval-harness: passed")
    outputs = outputs_of(tmp_path / "step-output.txt")
    assert outputs["pass-rate"] == "1.0000"  # every case of the suite passes on bm25
    assert (outputs["regressed-baselines"], outputs["regressed-cases"]) == ("0", "0")

    named = harness_main(*args, "--summary", "mine.md", "--outputs", "mine.txt", cwd=tmp_path, **runner)
    assert named.returncode == 0, named.stderr
    assert (tmp_path / "mine.md").read_text(encoding="utf-8").startswith("## memory-retrieval-harness: passed")
    assert outputs_of(tmp_path / "mine.txt") == outputs  # the options win: the runner's files are as they were
    assert len((tmp_path / "step-output.txt").read_text(encoding="utf-8").splitlines()) == len(outputs)
    assert (tmp_path / "step-summary.md").read_text(encoding="utf-8").count("## memory-retrieval-harness") == 1


def test_the_outputs_and_the_summary_count_the_same_regressions(harness_main: Main, tmp_path: Path) -> None:
    """Three cases of a suite frozen passing are made to fail: the outputs, the summary and the
    check's own line each say 3 cases in 1 baseline, though more numbers than 3 fell (the means)."""
    suite = write_suite(tmp_path / "suite", CASES)
    baselines = ("--baseline-dir", str(tmp_path / "baselines"))
    frozen = harness_main("run", "-s", str(suite), "-m", "bm25", "--freeze-baseline", *baselines, cwd=tmp_path)
    assert frozen.returncode == 0, frozen.stderr
    static = json.loads((suite / "static.json").read_text(encoding="utf-8"))
    for case in static["cases"][:3]:
        case["expect"]["relevant"]["should_only_include"] = ["m-4"]  # asked about another item: fails
    (suite / "static.json").write_text(json.dumps(static), encoding="utf-8")

    args = ("ci", "--suites", str(suite), "--modes", "bm25", *baselines, "--summary", "s.md", "--outputs", "o.txt")
    done = harness_main(*args, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    outputs, summary = outputs_of(tmp_path / "o.txt"), (tmp_path / "s.md").read_text(encoding="utf-8")
    assert (outputs["regressed-baselines"], outputs["regressed-cases"]) == ("1", "3")
    assert "**Regressed against the baseline**: 3 cases in 1 baseline\n" in summary
    assert "- `suite / embedded / bm25`: 3 cases regressed\n" in summary  # a suite folder is named by its name
    assert ": FAILED (cases: 3 regressed, 0 missing, 0 improved, 0 new; overall and category measures: " in summary
    measures = summary.split("overall and category measures: ", 1)[1].split(" regressed", 1)[0]
    assert int(measures) > 3  # counted apart, these would read as regressions of their own
