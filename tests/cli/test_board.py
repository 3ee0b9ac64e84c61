"""`harness board` (issue 43): every built-in system on every public suite, one job per run, in
order, resumable (a job done is kept), with the time left estimated from the jobs timed, a job
whose needs are missing skipped with the reason; then the leaderboard of what ran."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from harness.benchmarks.board import Job, Progress, Sources, make_board, needs_missing, plan
from tests.reports.pages import harness


def _jobs() -> list[Job]:
    return [Job("a", "job a", ()), Job("b", "job b", (), ("docker",)), Job("c", "job c", ())]


def _complete(_job: Job, folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run-embedded-latest.json").write_text("{}")
    return 0


def test_the_board_runs_each_job_skips_what_it_lacks_and_estimates_the_time_left(tmp_path: Path) -> None:
    """Jobs a and c take 10 s each by the clock; b lacks Docker. After a: one job timed at 10 s,
    one not done (c; b is not done either, so 2 x 10 s = 20 s)."""
    lines: list[str] = []
    ticks = itertools.count(0, 10)
    have = {"docker": False}
    folders, skipped = make_board(
        _jobs(), tmp_path, lambda job: needs_missing(job, have), _complete, lines.append, lambda: float(next(ticks))
    )
    assert [f.name for f in folders] == ["a", "c"]
    assert skipped == ["job b: needs a Docker engine (bash docker/start-engine.sh)"]
    assert lines[0] == "[1/3] job a: running (time left: unknown until a job is timed)"
    assert lines[1] == "[1/3] job a: exit 0 (time left: about 0 min 20 s)"
    assert lines[2] == "[2/3] job b: skipped: needs a Docker engine (bash docker/start-engine.sh)"
    assert Progress.read(tmp_path).done == {
        "a": {"wall_s": 10.0, "exit_code": 0.0},
        "c": {"wall_s": 10.0, "exit_code": 0.0},
    }


def test_a_second_board_keeps_the_jobs_done_and_runs_the_rest(tmp_path: Path) -> None:
    make_board(_jobs(), tmp_path, lambda job: "later" if job.name != "a" else None, _complete, lambda _: None)
    ran: list[str] = []

    def run(job: Job, folder: Path) -> int:
        ran.append(job.name)
        return _complete(job, folder)

    lines: list[str] = []
    make_board(_jobs(), tmp_path, lambda _: None, run, lines.append)
    assert ran == ["b", "c"]
    assert lines[0].startswith("[1/3] job a: done before, kept")


def test_two_boards_on_one_folder_keep_each_others_jobs(tmp_path: Path) -> None:
    """While this board runs job a, another board on the same folder finishes job c."""

    def run(job: Job, folder: Path) -> int:
        make_board(_jobs()[2:], tmp_path, lambda _: None, _complete, lambda _: None, lambda: 0.0)
        return _complete(job, folder)

    make_board(_jobs()[:1], tmp_path, lambda _: None, run, lambda _: None, lambda: 0.0)
    assert sorted(Progress.read(tmp_path).done) == ["a", "c"]


def test_a_job_that_writes_no_complete_report_is_not_done(tmp_path: Path) -> None:
    folders, skipped = make_board(_jobs()[:1], tmp_path, lambda _: None, lambda _job, _folder: 3, lambda _: None)
    assert folders == []
    assert skipped == ["job a: the run wrote no complete report (exit 3)"]
    assert Progress.read(tmp_path).done == {}


def test_the_plan_puts_every_system_on_every_public_suite_under_its_peers_rules(tmp_path: Path) -> None:
    pmb = tmp_path / "pmb"
    jobs = {job.name: job for job in plan(Sources(pmb, tmp_path / "s.json", None, "http:http://127.0.0.1:1"))}
    assert sorted(jobs) == sorted(
        f"{system}-{suite}"
        for system in ("reference", "popoto", "mem0", "service")
        for suite in ("precisionmembench", "longmemeval-s", "locomo", "mnemonic", "acervo", "nano-brain")
    )
    assert jobs["reference-precisionmembench"].args[-4:] == (
        "--suite",
        f"tenure:{pmb}",
        "--context-rules",
        "precisionmembench-vector",
    )
    assert jobs["popoto-longmemeval-s"].args[-2:] == ("--haystack-rules", "popoto")
    assert "given:--locomo" in jobs["mem0-locomo"].needs  # no LoCoMo file was given or found
    assert needs_missing(jobs["mem0-locomo"], {"docker": True, "package:mem0": True}) == (
        "needs the suite's files: give --locomo, or put them in a data folder"
    )


def test_the_peers_own_benchmarks_run_from_their_checkouts_under_their_rules(tmp_path: Path) -> None:
    """Mnemonic's scenarios.go, Acervo's three project files (staged apart from its chat-only
    ones) over its fixtures, nano-brain's tasks over its own checkout."""
    mnemonic, acervo, nano = tmp_path / "mnemonic", tmp_path / "acervo", tmp_path / "nano-brain"
    sources = Sources(None, None, None, None, mnemonic, acervo, nano)
    jobs = {job.name: job for job in plan(sources, tmp_path / "board")}
    assert jobs["reference-mnemonic"].args[-4:] == (
        "--suite",
        f"mnemonic:{mnemonic / 'cmd' / 'benchmark-quality'}",
        "--lifecycle-rules",
        "mnemonic-8ecf3ab",
    )
    assert f"file:{mnemonic / 'cmd' / 'benchmark-quality' / 'scenarios.go'}" in jobs["reference-mnemonic"].needs
    staged = tmp_path / "board" / "reference-acervo" / "scenarios"
    assert jobs["reference-acervo"].args[-4:] == (
        "--suite",
        f"acervo:{staged}:{acervo / 'tests' / 'fixtures'}",
        "--turn-rules",
        "acervo-v0.5",
    )
    scenarios = acervo / "tests" / "integration" / "scenarios"
    assert jobs["reference-acervo"].staged == tuple(
        (scenarios / f"p{n}_benchmark.yaml", f"scenarios/p{n}_benchmark.yaml") for n in (1, 2, 3)
    )
    tasks = nano / "benchmarks" / "capability" / "dataset.json"
    assert jobs["popoto-nano-brain"].args[-4:] == (
        "--suite",
        f"nano-brain:{tasks}:{nano}",
        "--code-rules",
        "nano-brain-1",
    )
    assert needs_missing(jobs["reference-nano-brain"], {}) == f"needs the suite's files ({tasks} is absent)"
    assert needs_missing(jobs["mem0-mnemonic"], {}) == "needs a Docker engine (bash docker/start-engine.sh)"


def test_a_jobs_staged_files_are_in_its_folder_when_it_runs(tmp_path: Path) -> None:
    (source := tmp_path / "p1.yaml").write_text("turns: []\n")
    job = Job("acervo", "acervo", (), (), ((source, "scenarios/p1_benchmark.yaml"),))
    seen: list[str] = []

    def run(job: Job, folder: Path) -> int:
        seen.append((folder / "scenarios" / "p1_benchmark.yaml").read_text())
        return _complete(job, folder)

    make_board([job], tmp_path / "board", lambda _: None, run, lambda _: None)
    assert seen == ["turns: []\n"]


def test_the_dry_run_lists_the_jobs_and_what_each_lacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = harness(tmp_path, "board", "--dry-run", "--only", "reference", "--pmb", str(tmp_path / "none"))
    assert code == 0
    out = capsys.readouterr().out
    assert (
        "reference-precisionmembench: reference on PrecisionMemBench (precisionmembench-vector) (skipped: needs the suite's files"
        in out
    )
    assert "popoto" not in out


def test_a_data_folders_checkouts_are_the_peers_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout under `$HARNESS_DATA_DIR/mnemonic/` is Mnemonic's when no `--mnemonic` is given;
    Acervo's, absent there, is a job that says what it lacks."""
    data = tmp_path / "data"
    (data / "mnemonic" / "cmd" / "benchmark-quality").mkdir(parents=True)
    (data / "mnemonic" / "cmd" / "benchmark-quality" / "scenarios.go").write_text("package main\n")
    monkeypatch.setenv("HARNESS_DATA_DIR", str(data))
    only = ("--only", "reference-mnemonic", "--only", "reference-acervo")
    assert harness(tmp_path, "board", "--dry-run", *only) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "reference-mnemonic: reference on Mnemonic's benchmark-quality (mnemonic-8ecf3ab)"
    assert lines[1].startswith("reference-acervo: reference on Acervo's indexed projects (acervo-v0.5) (skipped: needs")
