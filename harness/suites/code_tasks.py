"""Code-task files: nano-brain's capability format (`benchmarks/capability/dataset.json`), which
the built-in tasks use too, with the code base each runs over and the baseline it is held to.

Suites: `code-tasks:builtin` (cases/code-tasks/builtin/dataset.json over this harness's own
`harness/` package) and `nano-brain:TASKFILE[:CODEBASE]`. CODEBASE defaults to the folder above
the task file named as the file's `workspace` (nano-brain's checkout for its own file); the
baseline is `baseline_v1.json` beside the task file, when there is one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

import harness
from harness.errors import CaseFileError, HarnessError
from harness.models.code_task import AgentPass, Baseline, CodeTask, TaskSet
from harness.resources import DATA_FOLDERS
from harness.suites.jsonfile import describe, read_json, validate, validate_records
from harness.suites.resolve import cases_dir

BUILTIN = "builtin"
BASELINE_FILE = "baseline_v1.json"


def load_builtin(name: str) -> TaskSet:
    """`code-tasks:builtin`: the built-in tasks over this harness's own `harness/` package."""
    if name != BUILTIN:
        raise HarnessError(f"unknown code-task suite {name!r}: code-tasks:builtin, or nano-brain:TASKFILE[:CODEBASE]")
    # an installed wheel carries cases/, containers/ and docker/ inside the package: not its code
    data = tuple(f"resources/{folder}" for folder in DATA_FOLDERS)
    package = Path(harness.__file__).parent
    return load_task_file(cases_dir() / "code-tasks" / BUILTIN / "dataset.json", package, exclude=data)


def load_nano_brain(spec: str) -> TaskSet:
    """`nano-brain:TASKFILE[:CODEBASE]`, given without its prefix."""
    task_file, _, codebase = spec.partition(":")
    if not task_file:
        raise HarnessError("nano-brain: give the task file: nano-brain:TASKFILE[:CODEBASE]")
    path = Path(task_file).expanduser()
    raw = read_json(path)
    root = Path(codebase).expanduser() if codebase else _workspace_folder(path, raw)
    baseline = path.parent / BASELINE_FILE
    return load_task_file(path, root, baseline if baseline.is_file() else None, raw=raw)


def load_task_file(
    path: Path, codebase: Path, baseline: Path | None = None, *, raw: Any = None, exclude: tuple[str, ...] = ()
) -> TaskSet:
    raw = read_json(path) if raw is None else raw
    if not isinstance(raw, dict):
        raise CaseFileError(path, f"expected a JSON object, got {type(raw).__name__}")
    if "tasks" not in raw:
        raise CaseFileError(path, "no tasks", field="tasks")
    if not codebase.is_dir():
        raise HarnessError(f"{path}: code base {codebase} is not a folder")
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
        )
    except ValidationError as exc:  # the set's own checks (a repeated task id)
        raise CaseFileError(path, describe(exc)[1]) from None


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
