"""Loading task files: nano-brain's format, the code base a spec names or the file's workspace
implies, its baseline beside it, and one-line errors for what is wrong."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.errors import CaseFileError, HarnessError
from harness.evaluation.kinds import prefix_of
from harness.models.code_task import TaskCategory, Tool
from harness.pipeline.code_answer import SymbolTable
from harness.suites.code_tasks import load_builtin, load_nano_brain
from harness.suites.projects import ingest
from tests.code_tasks.conftest import LEDGER, TASK_FILE


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_spec_prefixes() -> None:
    assert prefix_of("code-tasks:builtin") == "code-tasks"
    assert prefix_of("nano-brain:x.json:/src") == "nano-brain"
    assert prefix_of("builtin") is None


def test_unknown_builtin_name() -> None:
    with pytest.raises(HarnessError, match="unknown code-task suite 'other'"):
        load_builtin("other")


def test_default_code_base_is_the_folder_named_as_the_workspace() -> None:
    tasks = load_nano_brain(f"{TASK_FILE}")
    assert tasks.codebase == LEDGER.resolve()
    assert tasks.name == "ledger"
    assert len(tasks.tasks) == 16
    assert tasks.agent.max_symbol_queries == 8
    assert tasks.baseline is not None
    assert {t.id for t in tasks.baseline.tasks} == {t.id for t in tasks.tasks}


def test_explicit_code_base_and_no_baseline(tmp_path: Path) -> None:
    task_file = write(tmp_path / "tasks.json", {"workspace": "elsewhere", "tasks": []})
    tasks = load_nano_brain(f"{task_file}:{LEDGER}")
    assert tasks.codebase == LEDGER.resolve()
    assert tasks.baseline is None


def test_a_code_base_must_be_found(tmp_path: Path) -> None:
    task_file = write(tmp_path / "tasks.json", {"workspace": "nowhere", "tasks": []})
    with pytest.raises(HarnessError, match="no folder above it is named 'nowhere'"):
        load_nano_brain(f"{task_file}")
    with pytest.raises(HarnessError, match="is not a folder"):
        load_nano_brain(f"{task_file}:{tmp_path / 'absent'}")


@pytest.mark.parametrize(
    ("task", "message"),
    [
        ({"id": "a", "category": "", "question": "q"}, "category"),
        ({"id": "a", "category": "flow", "question": "q", "tools": ["grep"]}, "tools"),
        ({"id": "a", "category": "search-qa", "question": "q", "input": {"query": "x"}, "expect_files": [""]}, "empty"),
        ({"id": "a", "category": "search-qa", "question": "q", "input": {"max_depth": 0}}, "max_depth"),
    ],
)
def test_invalid_tasks_are_one_line_errors(tmp_path: Path, task: dict, message: str) -> None:
    task_file = write(tmp_path / "tasks.json", {"workspace": "w", "tasks": [task]})
    with pytest.raises(CaseFileError, match=message) as caught:
        load_nano_brain(f"{task_file}:{LEDGER}")
    assert "\n" not in str(caught.value)


def test_what_nano_brains_runner_accepts_loads_with_a_line_per_unjudged_field(tmp_path: Path) -> None:
    """Free categories, tools without their inputs, no tools at all and input keys no tool reads
    load (nano-brain's runner reads the input as a map); each gap is one warning line."""
    tasks = [
        {"id": "no-entry", "category": "flow", "question": "q", "tools": ["flow"]},
        {"id": "no-node", "category": "support-root-cause", "question": "q", "tools": ["query", "trace"],
         "input": {"query": "x"}},
        {"id": "no-tools", "category": "graph-out", "question": "q", "input": {"query": "x", "kind": "fn"}},
        {"id": "extras", "category": "symbol-lookup", "question": "q", "tools": ["symbols"],
         "input": {"query": "x", "kind": "", "max_results": 20}},
    ]  # fmt: skip
    task_file = write(tmp_path / "tasks.json", {"workspace": "w", "agent": {"tools": ["query_question", "grep"]},
                                                "tasks": tasks})  # fmt: skip
    loaded = load_nano_brain(f"{task_file}:{LEDGER}")
    assert [t.category for t in loaded.tasks] == ["flow", "support-root-cause", "graph-out", "symbol-lookup"]
    assert loaded.rules == "nano-brain-2"
    assert loaded.tasks[2].input.texts() == ["x", "fn"]
    assert loaded.warnings == (
        "input.kind (2 of 4 tasks): no tool reads it; its text joins the identifier pass, as in nano-brain's runner",
        "input.max_results (1 of 4 tasks): no tool reads it (nano-brain's runner reads it for nothing either)",
        "agent.tools 'grep': not a step nano-brain's runner knows (query_question, query_input, "
        "symbols_identifiers); skipped",
        "task no-entry: the flow tool has no input.entry: it surfaces nothing",
        "task no-node: the trace tool has no input.node: it surfaces nothing",
        "task no-tools: names no tools: only the agent pass answers it",
    )
    harness_rules = load_nano_brain(f"{task_file}:{LEDGER}", "harness")
    assert harness_rules.rules == "harness"
    assert harness_rules.warnings[-2:] == (
        "task no-node: the trace tool has no input.node: it starts from the symbols the identifiers find",
        "task no-tools: names no tools: only the agent pass answers it",
    )


def test_the_ruleset_follows_the_files_nano_brain_version(tmp_path: Path) -> None:
    """An `agent` block is read only by nano-brain's second runner; a file without one is version 1."""
    plain = write(tmp_path / "a" / "tasks.json", {"workspace": "w", "tasks": []})
    agent = write(tmp_path / "b" / "tasks.json", {"workspace": "w", "agent": {"enabled": False}, "tasks": []})
    assert load_nano_brain(f"{plain}:{LEDGER}").rules == "nano-brain-1"
    assert load_nano_brain(f"{agent}:{LEDGER}").rules == "nano-brain-2"
    assert load_builtin("builtin").rules == "harness"
    with pytest.raises(HarnessError, match="unknown code-task ruleset 'strict'"):
        load_nano_brain(f"{plain}:{LEDGER}", "strict")


def test_the_task_file_and_its_baseline_are_not_the_code_base() -> None:
    """They spell the expected answers: a search must not find them."""
    tasks = load_nano_brain(f"{TASK_FILE}")
    assert set(tasks.exclude) == {"benchmarks/capability/dataset.json", "benchmarks/capability/baseline_v1.json"}
    paths = {r.path for r in ingest(tasks.codebase, exclude=tasks.exclude).records}
    assert "benchmarks/capability/dataset.json" not in paths


def test_repeated_task_ids(tmp_path: Path) -> None:
    task = {"id": "a", "category": "search-qa", "question": "q", "input": {"query": "x"}}
    task_file = write(tmp_path / "tasks.json", {"workspace": "w", "tasks": [task, task]})
    with pytest.raises(CaseFileError, match="task id 'a' appears twice"):
        load_nano_brain(f"{task_file}:{LEDGER}")


def test_missing_file_and_bad_baseline(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="no such file"):
        load_nano_brain(f"{tmp_path / 'none.json'}:{LEDGER}")
    task_file = write(tmp_path / "tasks.json", {"workspace": "w", "tasks": []})
    write(tmp_path / "baseline_v1.json", {"version": "1"})
    with pytest.raises(CaseFileError, match="overall"):
        load_nano_brain(f"{task_file}:{LEDGER}")


def test_tools_default_to_the_category() -> None:
    tasks = load_builtin("builtin")
    search = next(t for t in tasks.tasks if t.category == TaskCategory.SEARCH_QA)
    assert search.fixed_tools() == (Tool.QUERY,)
    assert search.fixed_tools(category_tools=False) == ()


def test_builtin_set_covers_every_category_and_names_real_code() -> None:
    """At least 20 tasks, every category; every node names a symbol, every expected file exists
    in harness/ and every expected symbol is (part of) a symbol's name there: a stale task fails here."""
    tasks = load_builtin("builtin")
    assert len(tasks.tasks) >= 20
    assert {t.category for t in tasks.tasks} == {c.value for c in TaskCategory}
    project = ingest(tasks.codebase, exclude=tasks.exclude)
    names = [r.title.lower() for r in project.records if r.kind.value == "symbol"]
    table = SymbolTable(project.records)
    for task in tasks.tasks:
        assert task.input.node is None or table.lookup(task.input.node), (task.id, task.input.node)
        for file in task.expect_files:
            assert (tasks.codebase / file).exists(), (task.id, file)
        for symbol in task.expect_symbols:
            assert any(symbol.lower() in name for name in names), (task.id, symbol)


def test_ledger_copy_keeps_working(tmp_path: Path) -> None:
    """The default code base follows the task file: a copy of the checkout is its own code base."""
    copy = tmp_path / "ledger"
    shutil.copytree(LEDGER, copy)
    tasks = load_nano_brain(f"{copy / 'benchmarks' / 'capability' / 'dataset.json'}")
    assert tasks.codebase == copy.resolve()
