"""The code-tasks kind declared: its options, how `code-tasks:builtin` and
`nano-brain:TASKFILE[:CODEBASE]` build it, and how a report's tasks read back."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from harness.errors import HarnessError, HarnessWarning
from harness.evaluation.kind import KindOptions, KindSpec, option
from harness.evaluation.kinds.code_tasks.results import CodeTaskResult
from harness.evaluation.kinds.code_tasks.runner import CodeTasksKind
from harness.pipeline.code_rules import CODE_RULESETS
from harness.reports.document import RowText
from harness.suites.code_tasks import load_builtin, load_nano_brain


@dataclass(frozen=True)
class CodeTaskOptions:
    code_rules: str | None = field(
        default=None,
        metadata=option(
            f"Judge code tasks by this ruleset ({', '.join(CODE_RULESETS)}; default: nano-brain's version for "
            "a nano-brain file, harness for the built-in tasks)."
        ),
    )


def build(suites: Sequence[str], common: KindOptions, own: CodeTaskOptions | None) -> CodeTasksKind:
    """`code-tasks:builtin` or `nano-brain:TASKFILE[:CODEBASE]`, by the ruleset `--code-rules` names."""
    (suite,) = suites
    prefix, _, rest = suite.partition(":")
    rules = own.code_rules if own is not None else None
    if rules is not None and rules not in CODE_RULESETS:
        raise HarnessError(f"--code-rules: unknown ruleset {rules!r} (known: {', '.join(CODE_RULESETS)})")
    tasks = load_builtin(rest, rules) if prefix == "code-tasks" else load_nano_brain(rest, rules)
    for line in tasks.warnings:
        warnings.warn(f"{PurePath(tasks.source).name}: {line}", HarnessWarning, stacklevel=2)
    return CodeTasksKind.for_run(tasks, common)


def result_from_json(data: Mapping[str, Any]) -> CodeTaskResult:
    return CodeTaskResult.from_json(data)


SPEC = KindSpec(
    name="code-tasks",
    title="Code tasks",
    suite_help="code-tasks:builtin, nano-brain:TASKFILE[:DIR]",
    options=CodeTaskOptions,
    build=build,
    result=result_from_json,
    builtin="code-tasks:builtin",
    results_key="results",
    prefixes=("code-tasks", "nano-brain"),
    honours=frozenset({"fail_under"}),
    main=("recall",),
    row=lambda r: RowText(r.task_id, r.category, r.question),
    rule="an expected symbol or file was missed (recall < 1)",
    rules=lambda kind, _reference: kind.rules.name,
)
