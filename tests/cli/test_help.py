"""`harness run --help` on an 80-column terminal: every option name whole (none cut to `--no-…`),
and the backend choices listed, as the registry names them."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from harness.backends import registry
from harness.cli import app
from tests.faults.helpers import harness


def test_run_help_at_80_columns_shows_every_option_whole_and_the_backends(tmp_path: Path) -> None:
    shown = harness("run", "--help", cwd=tmp_path, COLUMNS="80", TERMINAL_WIDTH="80")
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    command = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]  # a group
    names = [name for param in command.params for name in (*param.opts, *param.secondary_opts)]
    assert "--baseline-tolerance" in names
    for name in names:
        assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), f"{name} is not shown whole"
    backend_help = text[text.index("--backend") : text.index("--url")]
    for backend in registry.names():
        assert re.search(rf"\b{backend}\b", backend_help), f"backend {backend} is not listed"
