"""`harness`: run suites, compare backends, validate cases, embed, benchmark.

A package of thin commands, one module per group (`run`, `reports`, `board`, `baselines`, `cases`, `embed`,
`bench`, `servers`, `doctor`, `ci`: the GitHub Action's step); what a run does is the evaluation layer's (`evaluation/matrix.py`).
Every failure is one stderr line and one exit code (docs/exit-codes.md):
0 done; 1 a quality gate failed (`--fail-under`, or more than `--error-threshold` of the results
errored, default 0); 2 bad input, found before anything runs (usage, options that do not apply,
`--url`, `--out`, files, names, an invalid model name); 3 a backend could not be reached or
started, or was lost mid-run, or a valid model id cannot be loaded here; 130 SIGINT; 143 SIGTERM
(both remove the run's containers and write its finished part as an incomplete report).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from harness.cli.app import app
from harness.cli.console import error as _error
from harness.errors import HarnessError, HarnessWarning, Interrupted

# `harness --help` lists the commands in the order their modules add them
# isort: off
from harness.cli import run, reports, board, embed, bench, servers, doctor, cases, baselines, ci  # noqa: F401
# isort: on

__all__ = ["app", "main"]


def _show_warning(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
    """The harness's own warnings as one `harness: warning: ...` line; others as Python shows them."""
    if issubclass(category, HarnessWarning):
        _error(f"warning: {message}")
    else:
        _python_show_warning(message, category, *args, **kwargs)  # type: ignore[arg-type]


_python_show_warning = warnings.showwarning


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGINT and SIGTERM raise `Interrupted`, so both unwind through the same clean-up (containers,
    namespaces, partial reports); a second signal during that clean-up is ignored rather than cutting it short,
    and stays ignored after the block: the process is ending with the first one's line and exit code."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def interrupt(signum: int, _frame: object) -> None:
        for handled in (signal.SIGINT, signal.SIGTERM):
            signal.signal(handled, signal.SIG_IGN)
        received.append(signum)
        raise Interrupted(signal.Signals(signum).name, 128 + signum)

    previous = {s: signal.signal(s, interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        if not received:
            for handled, handler in previous.items():
                signal.signal(handled, handler)


def main() -> None:
    """Entry point: user mistakes become one line on stderr and a documented exit code.

    Library log records (psycopg's "error ignored terminating" after a lost connection) are not
    the CLI's output: the run reports errors itself. Models are never downloaded at run time
    (HF_HUB_OFFLINE=1 unless set).
    """
    psycopg_log = logging.getLogger("psycopg")
    if not any(isinstance(h, logging.NullHandler) for h in psycopg_log.handlers):
        psycopg_log.addHandler(logging.NullHandler())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    for command in (run.RUN, embed.EMBED):
        command.sign()  # with the kinds registered now
    warnings.showwarning = _show_warning
    try:
        with _signals_interrupt():
            code = app(standalone_mode=False)
    except Interrupted as exc:
        _error(f"interrupted by {exc.signal_name}" + (f": {exc.detail}" if exc.detail else ""))
        sys.exit(exc.exit_code)
    except typer.Abort:
        _error("interrupted")
        sys.exit(130)
    except typer.TyperException as exc:
        _error(f"error: {exc.format_message()}")
        sys.exit(2)
    except HarnessError as exc:
        _error(f"error: {exc}")
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
