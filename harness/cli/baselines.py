"""`harness baseline freeze|check|show`: the first two are `harness run` with its baseline flag."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.baselines import BaselineStore, stored_lines
from harness.cli.app import baseline_app
from harness.cli.console import say

_FORWARDED = {"allow_extra_args": True, "ignore_unknown_options": True}


@baseline_app.command("freeze", context_settings=_FORWARDED)
def baseline_freeze(ctx: typer.Context) -> int:
    """`harness run --freeze-baseline`, with every option of `harness run` (-s, -b, -m, --baseline-dir, ...)."""
    return _forward_run(ctx, "--freeze-baseline")


@baseline_app.command("check", context_settings=_FORWARDED)
def baseline_check(ctx: typer.Context) -> int:
    """`harness run --check-baseline`, with every option of `harness run` (-s, -b, -m, --baseline-tolerance, ...)."""
    return _forward_run(ctx, "--check-baseline")


def _forward_run(ctx: typer.Context, flag: str) -> int:
    """Run `harness run` with this command's arguments and `flag`, as if it had been typed."""
    run_command = ctx.find_root().command.get_command(ctx, "run")  # type: ignore[attr-defined]  # the root is a group
    return run_command.main([*ctx.args, flag], prog_name="harness run", standalone_mode=False)


@baseline_app.command("show")
def baseline_show(
    baseline_dir: Annotated[Path | None, typer.Option(help="Baselines folder (default: cases/baselines).")] = None,
) -> int:
    """List every frozen baseline: what it is of, when and by which version it was frozen, its overall scores."""
    for line in stored_lines(BaselineStore(baseline_dir)):
        say(line)
    return 0
