"""Standard output that a closed pipe cannot break (`harness run | head`).

When the reader goes away, the command still finishes its work (every report written) and
exits with its own code: writes to stdout are dropped from then on, silently, instead of raising
`BrokenPipeError` out of the middle of the run.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO, cast


class StdoutUntilClosed(io.TextIOBase):
    """A file for a console that writes to the current `sys.stdout` (so captured output still
    works) until a write finds the pipe closed; then that descriptor points at /dev/null, so the
    interpreter's last flush cannot fail either."""

    def __init__(self) -> None:
        super().__init__()
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone and sys.stdout is not None:
            try:
                sys.stdout.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self._gone and sys.stdout is not None:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                self._drop()

    def isatty(self) -> bool:
        return sys.stdout is not None and sys.stdout.isatty()

    def fileno(self) -> int:
        return sys.stdout.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # read-only here: the current stdout's
        return getattr(sys.stdout, "encoding", None) or "utf-8"

    def _drop(self) -> None:
        self._gone = True
        try:
            descriptor = sys.stdout.fileno()
        except (OSError, ValueError):  # not a real file (io.UnsupportedOperation): nothing to flush there
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, descriptor)
        finally:
            os.close(devnull)


def stdout_until_closed() -> TextIO:
    """A `StdoutUntilClosed` as the text file it is (typeshed's `TextIO` is a class no `io` type
    subclasses, so the type checker needs telling)."""
    return cast(TextIO, StdoutUntilClosed())
