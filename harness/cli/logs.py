"""Log lines of the libraries a run uses (a system's own package: mem0, Popoto, a third party's)
routed through the harness's output: without a handler, Python prints every warning they log on
stderr as it is, between the progress bars. During a run they are quiet; `run -v` shows them as
`harness: log: LOGGER: MESSAGE` lines. The harness itself reports through its own lines, never `logging`."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from harness.cli.console import error

SHOWN = logging.WARNING
"""The lowest level `-v` shows (what the libraries' loggers let through by default)."""


class _Routed(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = " ".join(record.getMessage().split())
        except Exception:  # noqa: BLE001 - a library's malformed log call must not end the run
            message = str(record.msg)
        error(f"log: {record.name}: {message}")


@contextmanager
def routed_logs(shown: bool) -> Iterator[None]:
    """For the block, every log record that reaches the root logger goes through the harness's
    error console when `shown`, else nowhere (the handler being there keeps Python's last-resort
    printer from writing it)."""
    root = logging.getLogger()
    handler = _Routed(SHOWN if shown else logging.CRITICAL + 1)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
