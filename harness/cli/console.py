"""What every command prints through: stdout and stderr consoles, plain lines, scorecards, bars,
and how a command asks click whether an option was given.

Lines and scorecards may quote others' text (a service's ids and errors, suite names): they are
printed as text, never as rich markup, with control characters escaped (`messages.printable`), and
neither console writes a line that begins with a workflow command (`pipes`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from harness.embeddings import registry as encoders
from harness.messages import printable
from harness.pipes import guarded_stderr, stdout_until_closed
from harness.reports.document import Scorecard

out_console = Console(file=stdout_until_closed(), width=None if sys.stdout.isatty() else 160)  # `| head` is fine
err_console = Console(file=guarded_stderr())

ENCODERS = encoders.names()
"""The offline `--model` choices, from the encoder list (harness/embeddings/registry.py)."""


def say(line: str) -> None:
    """One plain line of output, printed as it is (no markup, no highlighting, no wrapping)."""
    out_console.print(printable(line), highlight=False, markup=False, soft_wrap=True)


def notice(line: str) -> None:
    err_console.print(printable(line), highlight=False, markup=False, soft_wrap=True)


def error(message: str) -> None:
    err_console.print(f"harness: {printable(message)}", highlight=False, markup=False, soft_wrap=True)


def plain(value: str) -> Text:
    """A cell, title or caption as plain text: `[/x]` in an id is no markup (nor an error of rich's)."""
    return Text(printable(value))


def print_scorecard(card: Scorecard) -> None:
    """Draw a kind's scorecard as it is: the report decides every cell and caption line."""
    table = Table(title=plain(card.title), caption=plain("\n".join(card.caption)))
    for column in card.columns:
        table.add_column(plain(column), justify="left" if column in ("backend", "mode", "level") else "right")
    for row in card.rows:
        table.add_row(*(plain(cell) for cell in row))
    out_console.print(table)


def option_name(ctx: typer.Context, name: str) -> str:
    """How the user writes a parameter (`--fail-under`), as the command declares it."""
    param = next(p for p in ctx.command.params if p.name == name)
    return "/".join(param.opts)


def given(ctx: typer.Context, name: str) -> bool:
    """Whether the user passed the option (even with its default value), as click records it."""
    source = ctx.get_parameter_source(name)  # typer's own copy of click's ParameterSource: compare by name
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


@contextmanager
def session_bars() -> Iterator[Callable[[str, int | None], Callable[[str], None]]]:
    """The bars of one backend session: `start(description, total)` adds one, returning its `advance`,
    which the runner calls as each step finishes, on whichever worker: the bar counts finished work
    across workers, and its estimate of the time left is that rate's (`--concurrency`)."""
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
    )
    with progress:

        def start(description: str, total: int | None) -> Callable[[str], None]:
            task = progress.add_task(description, total=total)
            return lambda _: progress.advance(task)

        yield start


class _FillBar:
    """A cache fill's bar, with texts/s and ETA (`evaluation.embedders.FillBar`)."""

    def __init__(self, progress: Progress, what: str) -> None:
        self._progress = progress
        self._task = progress.add_task(f"reading {what}", total=None, rate="—")

    def plan(self, description: str, total: int) -> None:
        self._progress.update(self._task, description=description, total=total)

    def advance(self, count: int) -> None:
        self._progress.advance(self._task, count)
        speed = self._progress.tasks[0].speed
        self._progress.update(self._task, rate="—" if speed is None else f"{speed:.1f}")


@contextmanager
def fill_bar(what: str) -> Iterator[_FillBar]:
    """The bar of texts embedded into the cache; it disappears when done, so what follows says
    what was done and an error stays the only line."""
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} texts/s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    )
    with progress:
        yield _FillBar(progress, what)
