"""`harness cases validate`: a suite parsed and cross-checked, nothing run."""

from __future__ import annotations

from typing import Annotated

import typer

from harness.cli.app import cases_app
from harness.cli.console import err_console, out_console
from harness.evaluation.kind import KindOptions
from harness.evaluation.kinds import kinds_for, prefix_of
from harness.pipeline import Mode
from harness.suites import load_suite


@cases_app.command("validate")
def cases_validate(
    path: Annotated[
        str, typer.Argument(help="A suite folder, builtin, tenure:DIR, or any `harness run --suite` spec.")
    ],
) -> int:
    """Parse and cross-check a suite; one line per problem, exit 2 on the first."""
    if prefix_of(path) is not None:
        (planned,) = kinds_for([path], KindOptions([Mode.BM25]))
        kind = planned.kind
        out_console.print(f"ok: {path}: {kind.total([Mode.BM25])} {kind.unit} ({kind.name})", highlight=False)
        return 0
    loaded = load_suite(path)
    turns = sum(len(c.turns) for c in loaded.session_cases)
    out_console.print(
        f"ok: {loaded.name}: {len(loaded.corpus.memories)} memories, {len(loaded.static_cases)} static cases, "
        f"{len(loaded.session_cases)} session cases ({turns} turns), ruleset {loaded.ruleset}"
    )
    for warning in loaded.warnings:
        err_console.print(f"warning: {warning}", highlight=False, soft_wrap=True)
    return 0
