"""`harness doctor`: what is installed, what is missing, and the command that fixes each."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from harness.cli.app import app
from harness.cli.console import out_console


@app.command()
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="The checks as a JSON list, for scripts.")] = False,
) -> int:
    """Say what is installed, what is missing and the one command that fixes each (exit 1 if something is missing)."""
    from dataclasses import asdict

    from harness.doctor import Status, checks, healthy

    found = checks()
    if as_json:
        out_console.print(json.dumps([asdict(c) for c in found]), highlight=False, markup=False, soft_wrap=True)
        return 0 if healthy(found) else 1
    table = Table(title="harness doctor")
    for column in ("check", "status", "detail", "fix"):
        table.add_column(column, overflow="fold")
    style = {Status.OK: "green", Status.MISSING: "red", Status.OPTIONAL: "yellow"}
    for c in found:
        table.add_row(escape(c.name), f"[{style[c.status]}]{c.status}[/]", escape(c.detail), escape(c.fix))
    out_console.print(table)
    return 0 if healthy(found) else 1
