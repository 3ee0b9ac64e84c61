"""`harness run` with the code-task suites, through `harness.cli.main` in process: the scorecard and
reports, nano-brain's regression rule as exit 1, and bad specs as one line and exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.code_tasks.conftest import LEDGER
from tests.conftest import Main
from tests.faults.helpers import one_line


def ledger_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "ledger"
    shutil.copytree(LEDGER, copy)
    return copy / "benchmarks" / "capability"


def test_nano_brain_run_writes_its_report(harness_main: Main, tmp_path: Path) -> None:
    capability = ledger_copy(tmp_path)
    done = harness_main(
        "run", "--suite", f"nano-brain:{capability / 'dataset.json'}", "-m", "bm25", "--out", "out", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "code tasks: ledger (16 tasks)" in done.stdout
    report = json.loads((tmp_path / "out" / "code-tasks-ledger-embedded-latest.json").read_text())
    summary = report["summary"]["bm25"]
    assert summary["tasks"] == 16
    assert summary["baseline"]["overall"] == json.loads((capability / "baseline_v1.json").read_text())["overall"]
    assert report["structure"]["routes"] == 4
    # `harness compare` tables every kind: the code-task run is its row
    compared = harness_main("compare", "--out", "out", cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert "code-tasks" in compared.stdout
    assert "code-tasks-ledger" in compared.stdout


def test_a_regression_exits_1(harness_main: Main, tmp_path: Path) -> None:
    capability = ledger_copy(tmp_path)
    # a task no answer can satisfy lowers the overall under the frozen baseline's
    tasks = json.loads((capability / "dataset.json").read_text())
    tasks["tasks"].append(
        {
            "id": "impossible",
            "category": "search-qa",
            "question": "q",
            "input": {"query": "q"},
            "expect_files": ["nowhere/"],
        }
    )
    (capability / "dataset.json").write_text(json.dumps(tasks))
    done = harness_main(
        "run", "--suite", f"nano-brain:{capability / 'dataset.json'}", "-m", "bm25", "--out", "out", cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    assert "under the baseline's" in done.stderr + done.stdout


def test_bad_specs_are_one_line_exit_2(harness_main: Main, tmp_path: Path) -> None:
    for spec, message in [
        ("code-tasks:other", "unknown code-task suite 'other'"),
        (f"nano-brain:{tmp_path / 'missing.json'}", "no such file"),
        (
            f"nano-brain:{LEDGER / 'benchmarks' / 'capability' / 'dataset.json'}:{tmp_path / 'absent'}",
            "is not a folder",
        ),
    ]:
        done = harness_main("run", "--suite", spec, "-m", "bm25", "--out", "out", cwd=tmp_path)
        assert done.returncode == 2, (spec, done.stderr)
        assert message in one_line(done.stderr)


def test_freeze_and_check_baseline(harness_main: Main, tmp_path: Path) -> None:
    capability = ledger_copy(tmp_path)
    (capability / "baseline_v1.json").unlink()  # only the harness's own gate here
    run = ["run", "--suite", f"nano-brain:{capability / 'dataset.json'}", "-m", "bm25", "--out", "out"]
    gate = ["--baseline-dir", str(tmp_path / "baselines")]
    frozen = harness_main(*run, "--freeze-baseline", *gate, cwd=tmp_path)
    assert frozen.returncode == 0, frozen.stderr
    assert (tmp_path / "baselines" / "code-tasks-ledger" / "embedded-bm25.json").is_file()
    assert harness_main(*run, "--check-baseline", *gate, cwd=tmp_path).returncode == 0
    # an expectation nothing surfaces: that task's score and the overall fall
    tasks = json.loads((capability / "dataset.json").read_text())
    tasks["tasks"][0]["expect_symbols"].append("NoSuchSymbolAnywhere")
    (capability / "dataset.json").write_text(json.dumps(tasks))
    checked = harness_main(*run, "--check-baseline", *gate, cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    assert "flow-create-entry" in checked.stdout + checked.stderr


def test_a_code_base_without_code_is_one_line_exit_2(harness_main: Main, tmp_path: Path) -> None:
    """No code base given, and the folder named as the workspace holds no code: every task would
    score 0 and be called a regression; the run stops instead."""
    capability = tmp_path / "docs-only" / "benchmarks" / "capability"
    capability.mkdir(parents=True)
    (tmp_path / "docs-only" / "README.md").write_text("# notes\n")
    task = {"id": "t", "category": "search-qa", "question": "q", "tools": ["query"], "input": {"query": "q"}}
    (capability / "dataset.json").write_text(json.dumps({"workspace": "docs-only", "tasks": [task]}))
    done = harness_main("run", "--suite", f"nano-brain:{capability / 'dataset.json'}", "-m", "bm25", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "holds no code the harness parses" in one_line(done.stderr)
    assert "nano-brain:TASKFILE:CODEBASE" in one_line(done.stderr)


def test_unjudged_fields_are_warning_lines_and_the_ruleset_is_chosen(harness_main: Main, tmp_path: Path) -> None:
    task = {"id": "t", "category": "trace", "question": "What does Queue.Run call?", "tools": ["trace"]}
    task_file = tmp_path / "tasks.json"
    task_file.write_text(json.dumps({"workspace": "w", "agent": {"enabled": True}, "tasks": [task]}))
    run = ["run", "--suite", f"nano-brain:{task_file}:{LEDGER}", "-m", "bm25", "--out", "out"]
    done = harness_main(*run, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    warning = "harness: warning: tasks.json: task t: the trace tool has no input.node: it surfaces nothing"
    assert warning in done.stderr
    report = json.loads((tmp_path / "out" / "code-tasks-w-embedded-latest.json").read_text())
    assert report["settings"]["rules"]["name"] == "nano-brain-2"
    strict = harness_main(*run, "--code-rules", "harness", cwd=tmp_path)
    assert strict.returncode == 0, strict.stderr
    assert "it starts from the symbols the identifiers find" in strict.stderr
    report = json.loads((tmp_path / "out" / "code-tasks-w-embedded-latest.json").read_text())
    assert report["settings"]["rules"]["name"] == "harness"
    unknown = harness_main(*run, "--code-rules", "strict", cwd=tmp_path)
    assert unknown.returncode == 2
    assert "unknown ruleset 'strict'" in one_line(unknown.stderr)
