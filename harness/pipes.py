"""Standard output that a closed pipe cannot break (`harness run | head`).

When the reader goes away, the command still finishes its work (every report written) and
exits with its own code: writes to stdout are dropped from then on, silently, instead of raising
`BrokenPipeError` out of the middle of the run.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any


class StdoutUntilClosed:
    """A file for a console that writes to the current `sys.stdout` (so captured output still
    works) until a write finds the pipe closed; then that descriptor points at /dev/null, so the
    interpreter's last flush cannot fail either."""

    def __init__(self) -> None:
        self._closed = False

    def write(self, text: str) -> int:
        if not self._closed:
            try:
                sys.stdout.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self._closed:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self) -> None:
        self._closed = True
        try:
            descriptor = sys.stdout.fileno()
        except (OSError, io.UnsupportedOperation):  # not a real file: nothing left to flush there
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, descriptor)
        finally:
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        """Everything else (isatty, encoding, fileno) is the current stdout's."""
        return getattr(sys.stdout, name)
