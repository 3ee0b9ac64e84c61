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
        ({"id": "a", "category": "flow", "question": "q"}, "the flow tool needs input.entry"),
        ({"id": "a", "category": "impact", "question": "q"}, "the impact and trace tools need input.node"),
        ({"id": "a", "category": "multi-tool", "question": "q"}, "a multi-tool task names its tools"),
        ({"id": "a", "category": "chat", "question": "q"}, "Input should be"),
        ({"id": "a", "category": "search-qa", "question": "q", "input": {"query": "x"}, "expect_files": [""]}, "empty"),
        ({"id": "a", "category": "search-qa", "question": "q", "input": {"query": "x", "depth": 2}}, "unknown field"),
    ],
)
def test_invalid_tasks_are_one_line_errors(tmp_path: Path, task: dict, message: str) -> None:
    task_file = write(tmp_path / "tasks.json", {"workspace": "w", "tasks": [task]})
    with pytest.raises(CaseFileError, match=message) as caught:
        load_nano_brain(f"{task_file}:{LEDGER}")
    assert "\n" not in str(caught.value)


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
    search = next(t for t in tasks.tasks if t.category is TaskCategory.SEARCH_QA)
    assert search.fixed_tools == (Tool.QUERY,)


def test_builtin_set_covers_every_category_and_names_real_code() -> None:
    """At least 20 tasks, every category; every node names a symbol, every expected file exists
    in harness/ and every expected symbol is (part of) a symbol's name there: a stale task fails here."""
    tasks = load_builtin("builtin")
    assert len(tasks.tasks) >= 20
    assert {t.category for t in tasks.tasks} == set(TaskCategory)
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
