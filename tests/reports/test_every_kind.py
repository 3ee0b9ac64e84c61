"""Every kind of case is sharded, merged, compared and gated alike, through the runner's envelope
(issue 17's bugs: shards written as whole runs, shards dropped by three kinds, incomplete runs
flagged three ways, a subset compared with the whole, options silently ignored)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.backends import registry
from harness.errors import Interrupted
from harness.evaluation.kind import Engine, KindOptions, Step
from harness.evaluation.kinds import kinds_for
from harness.evaluation.runner import RunRequest, run_and_report
from harness.metrics.significance import paired_test
from harness.pipeline.settings import Mode
from harness.resources import data_root
from tests.datasets.builders import shared_file

from .pages import harness

CAPABILITY = data_root() / "cases" / "code-tasks" / "nano-brain-format" / "ledger" / "benchmarks" / "capability"
TIMING = {
    "started_at",
    "wall_s",
    "files",
    "checksum",
    "latency_ms",
    "p50_ms",
    "p95_ms",
    "created_at",
    "timing",
    "concurrency",
    "throughput",
}
"""What differs between two runs of the same items: when, how long (a dataset report's `timing`:
its shards' work added up when merged), and the files' own names."""


def without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def ledger(tmp_path: Path) -> Path:
    """A copy of the nano-brain example (its task file and frozen baseline)."""
    copy = tmp_path / "ledger"
    if not copy.exists():
        shutil.copytree(CAPABILITY.parents[1], copy)
    return copy / "benchmarks" / "capability" / "dataset.json"


@pytest.mark.parametrize(
    ("suite", "stem"),
    [
        ("builtin", "run-embedded"),
        ("nano-brain:{ledger}", "code-tasks-ledger-embedded"),
        ("lifecycle:builtin", "lifecycle-embedded"),
        ("conversation:builtin", "conversation-embedded"),
        ("haystack:builtin", "dataset-builtin-session"),
    ],
)
def test_shards_of_every_kind_merge_into_the_unsharded_report(tmp_path: Path, suite: str, stem: str) -> None:
    """Code-task, lifecycle and conversation runs took `--shard`, wrote the shard as the whole
    run's `-latest` and could not be merged; now each shard says so and merges byte for byte
    into the unsharded report (timing aside). Datasets too, through the same merge (theirs had
    one of its own, which wrote fields the unsharded report has not)."""
    suite = suite.format(ledger=ledger(tmp_path))
    run = ["run", "--suite", suite, "-m", "bm25"]
    # 1: a gate of the run's own (the built-in lifecycle scenarios' overall grade in bm25)
    verdict = harness(tmp_path, *run, "--out", "whole")
    assert verdict in (0, 1)
    for index in (1, 2):
        assert harness(tmp_path, *run, "--shard", f"{index}/2", "--out", "shards") in (0, 1)
    shards = sorted((tmp_path / "shards").glob(f"{stem}-shard*of2-2*.json"))
    assert len(shards) == 2
    assert not list((tmp_path / "shards").glob("*latest*")), "a shard is never a whole run's latest"
    parts = [json.loads(p.read_text()) for p in shards]
    assert [p["shard"]["index"] for p in parts] == [1, 2]
    whole = json.loads((tmp_path / "whole" / f"{stem}-latest.json").read_text())
    key = {"conversation": "turns", "beliefs": "cases", "haystack": "questions"}.get(whole["kind"], "results")
    assert sorted(len(p[key]) for p in parts) != [0, len(whole[key])], "both shards hold items"
    assert harness(tmp_path, "merge", *map(str, reversed(shards)), "--out", "merged") == verdict, "the run's verdict"
    merged = json.loads((tmp_path / "merged" / f"{stem}-latest.json").read_text())
    assert merged["shard"] is None
    assert json.dumps(without_timing(merged), sort_keys=True) == json.dumps(without_timing(whole), sort_keys=True)


@pytest.mark.parametrize(
    ("dataset", "options"),
    [
        ("builtin", ()),
        ("longmemeval-oracle", ("--limit", "80", "--sample", "stratified", "--granularity", "turn")),
        ("locomo", ("--limit", "120", "--sample", "stride")),
    ],
)
def test_four_shards_of_a_dataset_run_merge_into_the_unsharded_report(
    tmp_path: Path, dataset: str, options: tuple[str, ...]
) -> None:
    """Issue 20: a dataset run in four shards, merged, is the unsharded run's report (timing aside);
    the public files are read from ../shared (skipped without them), the built-in one always."""
    if dataset != "builtin":
        public = shared_file({"locomo": "locomo10.json"}.get(dataset, "longmemeval_oracle.json"))
        options = (*options, "--file", str(public))
    run = ["run", "--dataset", dataset, "-m", "bm25", *options]
    assert harness(tmp_path, *run, "--out", "whole") == 0
    for index in range(1, 5):
        assert harness(tmp_path, *run, "--shard", f"{index}/4", "--out", "shards") == 0
    shards = sorted((tmp_path / "shards").glob("dataset-*-shard*of4-2*.json"))
    assert len(shards) == 4
    assert sum(bool(json.loads(p.read_text())["questions"]) for p in shards) > 1, "the shards split the questions"
    assert harness(tmp_path, "merge", *map(str, shards), "--out", "merged") == 0
    (whole,) = (tmp_path / "whole").glob("dataset-*-latest.json")
    merged = json.loads((tmp_path / "merged" / whole.name).read_text())
    assert len(merged["timing"]["shard_wall_s"]) == 4
    assert json.dumps(without_timing(merged), sort_keys=True) == json.dumps(
        without_timing(json.loads(whole.read_text())), sort_keys=True
    )


def test_a_belief_shard_is_never_read_as_a_whole_run(tmp_path: Path) -> None:
    """`--shard 1/2` wrote `run-embedded-shard1of2-latest.json`, and `harness compare` showed its
    56/56 as the suite's result; now no `-latest` is written, so compare has nothing whole to read."""
    assert harness(tmp_path, "run", "-m", "bm25", "--shard", "1/2", "--out", "out") == 0
    assert [p.name for p in (tmp_path / "out").glob("*latest*")] == []
    assert harness(tmp_path, "compare", "--out", "out") == 2


class Stops:
    """A kind whose run is interrupted after its first item (as SIGINT would)."""

    def __init__(self, kind: Any) -> None:
        self._kind = kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kind, name)

    def execute(self, engine: Engine) -> Iterator[Step]:
        steps = self._kind.execute(engine)
        yield next(steps)
        steps.close()
        raise Interrupted("SIGINT", 130)


@pytest.mark.parametrize("suite", ["nano-brain:{ledger}", "lifecycle:builtin", "conversation:builtin"])
def test_an_incomplete_run_is_one_bool_a_reason_and_a_banner_for_every_kind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, suite: str
) -> None:
    """Code-task and lifecycle reports stored the reason text as `incomplete`, and code-task
    reports had no banner: now every kind's report says it alike."""
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "user-cache"))
    (planned,) = kinds_for([suite.format(ledger=ledger(tmp_path))], KindOptions([Mode.BM25]))
    kind = planned.kind
    kind.prepare()
    backend = registry.connect("embedded")
    try:
        finished = run_and_report(Stops(kind), backend, None, RunRequest((Mode.BM25,), tmp_path))
    finally:
        backend.close()
    report = json.loads(finished.paths[0].read_text())
    assert report["incomplete"] is True
    assert report["incomplete_reason"].startswith(f"interrupted by SIGINT after 1 of {kind.total([Mode.BM25])}")
    assert "-incomplete-" in finished.paths[0].name
    assert not list(tmp_path.glob("*latest*"))
    markdown = finished.paths[1].read_text()
    assert f"> **INCOMPLETE RUN**: {report['incomplete_reason']}." in markdown
    assert finished.report.scorecard.caption[0] == f"INCOMPLETE: {report['incomplete_reason']}"


def test_a_nano_brain_subset_is_compared_with_the_same_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--limit 1` compared one task's recall with the whole baseline's overall: REGRESSION, exit 1.
    Here the first task is one no answer satisfies, scored 0 in the baseline too: no regression."""
    tasks = ledger(tmp_path)
    data = json.loads(tasks.read_text())
    impossible = {"id": "impossible", "category": "search-qa", "question": "q", "input": {"query": "q"}}
    data["tasks"].insert(0, impossible | {"expect_files": ["nowhere/"]})
    tasks.write_text(json.dumps(data))
    baseline_file = tasks.parent / "baseline_v1.json"
    baseline = json.loads(baseline_file.read_text())
    baseline["tasks"].insert(0, {"id": "impossible", "category": "search-qa", "recall": 0.0})
    baseline["overall"] = round(sum(t["recall"] for t in baseline["tasks"]) / len(baseline["tasks"]), 3)
    baseline_file.write_text(json.dumps(baseline))
    run = ["run", "--suite", f"nano-brain:{tasks}", "-m", "bm25"]
    assert harness(tmp_path, *run, "--limit", "1") == 0
    report = json.loads((tmp_path / "reports" / "code-tasks-ledger-embedded-latest.json").read_text())
    summary = report["summary"]["bm25"]
    assert (summary["tasks"], summary["overall"]) == (1, 0.0)
    assert summary["baseline"]["overall"] == 0.0
    assert summary["baseline"]["regression"] is False
    assert "REGRESSION" not in capsys.readouterr().out
    assert harness(tmp_path, *run) == 0  # the whole set: its overall against the baseline's


@pytest.mark.parametrize("subset", [("--limit", "5"), ("--shard", "1/2")])
def test_a_subset_run_is_checked_against_the_same_items_of_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], subset: tuple[str, str]
) -> None:
    """A `--limit` run failed its check (every other case "missing"), a `--shard` run was refused."""
    base = ["run", "-m", "bm25", "--baseline-dir", str(tmp_path / "baselines")]
    assert harness(tmp_path, *base, "--freeze-baseline") == 0
    capsys.readouterr()
    assert harness(tmp_path, *base, *subset, "--check-baseline") == 0
    out = capsys.readouterr().out
    assert "baseline builtin / embedded / bm25: passed (cases: 0 regressed, 0 missing" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--suite", "conversation:builtin", "--trec"), "--trec does not apply to conversation turns"),
        (("--suite", "nano-brain:{ledger}", "--trec"), "--trec does not apply to code tasks"),
        (
            ("--suite", "conversation:builtin", "--fields", "content"),
            "--fields does not apply to conversation turns (an option of belief suites",
        ),
        (
            ("--suite", "nano-brain:{ledger}", "--fields", "content"),
            "--fields does not apply to code tasks (an option of belief suites",
        ),
        (("--suite", "lifecycle:builtin", "--fail-under", "0.5"), "--fail-under does not apply to lifecycle"),
        (
            (
                "--cycles",
                "2",
            ),
            "--cycles does not apply to belief suites (an option of lifecycle scenarios",
        ),
    ],
)
def test_an_option_a_kind_would_ignore_is_refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: tuple[str, ...],
    message: str,
) -> None:
    """`--trec` and `--fields content` were accepted on conversation and code-task runs and changed nothing."""
    args = tuple(a.format(ledger=ledger(tmp_path)) for a in args)
    assert harness(tmp_path, "run", "-m", "bm25", *args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
    assert not (tmp_path / "reports").exists()


def test_compare_tests_runs_on_their_shared_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tasks = ledger(tmp_path)
    for folder in ("a", "b"):
        assert harness(tmp_path, "run", "-s", f"nano-brain:{tasks}", "-m", "bm25", "--out", folder) == 0
    capsys.readouterr()
    reports = [str(tmp_path / f / "code-tasks-ledger-embedded-latest.json") for f in ("a", "b")]
    assert harness(tmp_path, "compare", *reports, "--out", "c") == 0
    out = capsys.readouterr().out
    assert "code-tasks code-tasks-ledger bm25:" in out
    assert "on 16 shared items" in out
    assert "p = 1.0000: not significant" in out  # the same deterministic answers twice


def test_the_paired_test_enumerates_few_items_and_samples_many() -> None:
    assert paired_test([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]).p_value == 2 / 8  # all +1 or all -1 of 8 sign sets
    assert paired_test([0.5] * 5, [0.5] * 5).p_value == 1.0
    many = paired_test([0.2] * 40, [0.9] * 40)
    assert many.significant
    assert many.p_value == 1 / 10_001
    mixed = paired_test([0.0, 1.0] * 20, [1.0, 0.0] * 20)
    assert not mixed.significant


def test_the_trec_help_says_which_kinds_write_runs_and_why_the_others_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Conversation turns and code tasks refuse `--trec`: a turn is judged by what its context
    holds, a task by the symbols and files its answer surfaces, as sets; neither ranks documents
    against relevance judgements, so there is no run and qrels to write. The help says so, from
    the specs (a kind honouring `trec` is listed with those that write them)."""
    assert harness(tmp_path, "run", "--help") == 0
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", capsys.readouterr().out).split())
    assert (
        "Also write each mode's run and qrels as TREC files (belief suites, public datasets, lifecycle "
        "scenarios: they rank documents against relevance judgements; conversation turns, code tasks judge "
        "what an answer or context holds, not a ranking: refused)."
    ) in text
