"""Code-task files: nano-brain's capability format (`benchmarks/capability/dataset.json`), which
the built-in tasks use too, with the code base each runs over and the baseline it is held to.

Suites: `code-tasks:builtin` (cases/code-tasks/builtin/dataset.json over the frozen snapshot of
part of this harness's source beside it, `codebase/`) and `nano-brain:TASKFILE[:CODEBASE]`. CODEBASE defaults to the folder above
the task file named as the file's `workspace` (nano-brain's checkout for its own file); the
baseline is `baseline_v1.json` beside the task file, when there is one.

A nano-brain file is judged by nano-brain's rules (`pipeline.code_rules`): `nano-brain-2` when it
carries an `agent` block (the runner that reads one), else `nano-brain-1`; the built-in tasks by
the harness's. Every field nano-brain's runner reads loads; `TaskSet.warnings` has one line per
field or tool input the importer cannot judge, and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.errors import CaseFileError, HarnessError
from harness.models.code_task import AGENT_TOOLS, AgentPass, Baseline, CodeTask, TaskSet
from harness.pipeline.code_rules import HARNESS_RULES, NANO_BRAIN_1_RULES, NANO_BRAIN_2_RULES, code_rules
from harness.suites.jsonfile import describe, read_json, validate, validate_records
from harness.suites.resolve import cases_dir

BUILTIN = "builtin"
BASELINE_FILE = "baseline_v1.json"
CODEBASE = "codebase"
"""The built-in tasks' frozen code base, beside their task file."""


def load_builtin(name: str, rules: str | None = None) -> TaskSet:
    """`code-tasks:builtin`: the built-in tasks over a frozen code base, part of this harness's
    source at 3d6f5f3 (`cases/code-tasks/builtin/codebase/`), so their answers do not move with the
    harness's code; by the harness's rules unless `rules` names others."""
    if name != BUILTIN:
        raise HarnessError(f"unknown code-task suite {name!r}: code-tasks:builtin, or nano-brain:TASKFILE[:CODEBASE]")
    folder = cases_dir() / "code-tasks" / BUILTIN
    return load_task_file(folder / "dataset.json", folder / CODEBASE, rules=rules or HARNESS_RULES.name)


def load_nano_brain(spec: str, rules: str | None = None) -> TaskSet:
    """`nano-brain:TASKFILE[:CODEBASE]`, given without its prefix; `rules` names a ruleset
    (else the file's nano-brain version)."""
    task_file, _, codebase = spec.partition(":")
    if not task_file:
        raise HarnessError("nano-brain: give the task file: nano-brain:TASKFILE[:CODEBASE]")
    path = Path(task_file).expanduser()
    raw = read_json(path)
    root = Path(codebase).expanduser() if codebase else _workspace_folder(path, raw)
    baseline = path.parent / BASELINE_FILE
    if rules is None:
        rules = (NANO_BRAIN_2_RULES if isinstance(raw, dict) and "agent" in raw else NANO_BRAIN_1_RULES).name
    return load_task_file(path, root, baseline if baseline.is_file() else None, raw=raw, rules=rules)


def load_task_file(
    path: Path,
    codebase: Path,
    baseline: Path | None = None,
    *,
    raw: Any = None,
    exclude: tuple[str, ...] = (),
    rules: str = HARNESS_RULES.name,
) -> TaskSet:
    try:
        ruleset = code_rules(rules)
    except ValueError as exc:
        raise HarnessError(str(exc)) from None
    raw = read_json(path) if raw is None else raw
    if not isinstance(raw, dict):
        raise CaseFileError(path, f"expected a JSON object, got {type(raw).__name__}")
    if "tasks" not in raw:
        raise CaseFileError(path, "no tasks", field="tasks")
    if not codebase.is_dir():
        raise HarnessError(f"{path}: code base {codebase} is not a folder")
    exclude = (*exclude, *_answer_files(codebase, path, baseline))
    tasks = validate_records(CodeTask, raw["tasks"], path, lambda t: t.get("id"), prefix="tasks")
    agent = validate(AgentPass, raw.get("agent", {}), path, prefix="agent")
    frozen = validate(Baseline, read_json(baseline), baseline) if baseline is not None else None
    try:
        return TaskSet(
            name=str(raw.get("workspace") or path.stem),
            codebase=codebase.resolve(),
            exclude=exclude,
            tasks=tuple(tasks),
            agent=agent,
            baseline=frozen,
            source=str(path),
            rules=ruleset.name,
            warnings=tuple(_unjudged(tasks, agent, ruleset.category_tools)),
        )
    except ValidationError as exc:  # the set's own checks (a repeated task id)
        raise CaseFileError(path, describe(exc)[1]) from None


def _answer_files(codebase: Path, *files: Path | None) -> list[str]:
    """The task file and its baseline, where they lie inside the code base: they spell the expected
    answers, and a search that returned them would credit an answer the code never gave."""
    root = codebase.resolve()
    return [
        f.resolve().relative_to(root).as_posix() for f in files if f is not None and f.resolve().is_relative_to(root)
    ]


def _unjudged(tasks: list[CodeTask], agent: AgentPass, category_tools: bool) -> list[str]:
    """One line per input key no tool reads, per unknown agent step, per tool without its input."""
    lines = []
    keys: dict[str, list[CodeTask]] = {}
    for task in tasks:
        for key in task.input.extras:
            keys.setdefault(key, []).append(task)
    for key, having in keys.items():
        texts = sum(1 for t in having if isinstance(t.input.extras[key], str) and t.input.extras[key])
        why = (
            "no tool reads it; its text joins the identifier pass, as in nano-brain's runner"
            if texts
            else "no tool reads it (nano-brain's runner reads it for nothing either)"
        )
        lines.append(f"input.{key} ({len(having)} of {len(tasks)} tasks): {why}")
    for step in agent.tools:
        if step not in AGENT_TOOLS:
            lines.append(
                f"agent.tools {step!r}: not a step nano-brain's runner knows ({', '.join(AGENT_TOOLS)}); skipped"
            )
    for task in tasks:
        lines.extend(f"task {task.id}: {gap}" for gap in task.gaps(category_tools))
    return lines


def _workspace_folder(task_file: Path, raw: Any) -> Path:
    """The nearest folder above the task file named as its `workspace`."""
    workspace = raw.get("workspace") if isinstance(raw, dict) else None
    if isinstance(workspace, str) and workspace:
        for folder in task_file.resolve().parents:
            if folder.name == workspace:
                return folder
    raise HarnessError(
        f"{task_file}: no folder above it is named {workspace!r} (its workspace): "
        "give the code base as nano-brain:TASKFILE:CODEBASE"
    )
