"""The built-in code tasks ask about a frozen code base (issue 43): a snapshot of part of this
harness's source at 3d6f5f3, committed under cases/code-tasks/builtin/codebase/, so their answers
do not drift as the harness's code moves. Each flow and impact task's expected answer is derived
here from the snapshot by the semantics, with a call graph of its own (Python's `ast`, calls by
name): a flow's expected symbols are callees of its node within its depth, an impact's are callers
of it within its depth, and every expected file holds one of them or the node."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from harness.models.code_task import CodeTask
from harness.suites.code_tasks import load_builtin

TASKS = load_builtin("builtin")


def _graph(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Per definition name (`name`, `Class.name`, `file.py::name`), the names its body calls; and
    per definition name, the files defining it."""
    calls: dict[str, set[str]] = defaultdict(set)
    files: dict[str, set[str]] = defaultdict(set)
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for owner, node in _definitions(tree):
            names = {node.name, f"{path.name}::{node.name}"} | ({f"{owner}.{node.name}"} if owner else set())
            called = {n for c in ast.walk(node) if isinstance(c, ast.Call) and (n := _called(c)) is not None}
            for name in names:
                calls[name] |= called
                files[name].add(rel)
    return calls, files


def _definitions(tree: ast.Module) -> list[tuple[str | None, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found: list[tuple[str | None, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((None, node))
        elif isinstance(node, ast.ClassDef):
            found += [(node.name, n) for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return found


def _called(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


CALLS, FILES = _graph(TASKS.codebase)


def _callees(node: str, depth: int) -> set[str]:
    found, frontier = set(), {node}
    for _ in range(depth):
        frontier = {c for n in frontier for c in CALLS.get(n, ()) if c in CALLS} - found
        found |= frontier
    return found


def _callers(node: str, depth: int) -> set[str]:
    bare = node.rpartition("::")[2].rpartition(".")[2]
    found, frontier = set(), {bare}
    for _ in range(depth):
        frontier = {d for d, called in CALLS.items() if "::" not in d and called & frontier} - found
        frontier = {d.rpartition(".")[2] for d in frontier} | frontier
        found |= frontier
    return found


def test_the_code_base_is_the_frozen_snapshot_not_the_harness() -> None:
    assert TASKS.codebase.parts[-3:] == ("code-tasks", "builtin", "codebase")
    assert (TASKS.codebase / "pipeline" / "memory_layer.py").is_file()


@pytest.mark.parametrize("task", [t for t in TASKS.tasks if t.category in ("flow", "impact")], ids=lambda t: t.id)
def test_a_flow_or_impact_answer_follows_from_the_snapshots_calls(task: CodeTask) -> None:
    node, depth = str(task.input.node), task.input.max_depth or 1
    reached = _callees(node, depth) if task.category == "flow" else _callers(node, depth)
    missing = [s for s in task.expect_symbols if s not in reached]
    assert not missing, f"{task.id}: not within {depth} of {node}: {missing}"
    holding = {f for name in reached | {node} for f in FILES.get(name, ())}
    assert set(task.expect_files) <= holding, (task.id, set(task.expect_files) - holding)
