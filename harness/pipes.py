"""Standard output and error as the consoles write them: stdout that a closed pipe cannot break
(`harness run | head`), and on both no line that begins with a GitHub workflow command.

When the reader of stdout goes away, the command still finishes its work (every report written)
and exits with its own code: writes to stdout are dropped from then on, silently, instead of
raising `BrokenPipeError` out of the middle of the run.

GitHub's runner reads every line of a step's stdout and stderr that starts, after blanks, with `::`
(or `##[`) as a command to it (`::error::`, `::add-mask::`, `::stop-commands::`). The harness
itself gives none, so a line that would start so holds a service's text (an id wrapped onto a line
of its own by the scorecard): its first character is written as its escape (`\\x3a`, `\\x23`).
"""

from __future__ import annotations

import io
import os
import re
import sys
from typing import TextIO, cast

_COMMAND = re.compile(r"^([^\S\n]*)(:(?=:)|#(?=#\[))", re.MULTILINE)
"""A line's start (blanks other than a line break, then the first character) that makes it a command."""


class _Guarded(io.TextIOBase):
    """A file for a console that writes to the current `sys.stdout` or `sys.stderr` (so captured
    output still works), with no line beginning with a workflow command. A line may be written in
    parts: whether the next write starts a line (only blanks since the last line break) is kept."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name
        self._line_start = True

    @property
    def _stream(self) -> TextIO | None:
        stream = getattr(sys, self._name)
        if self._name == "stderr":  # the stream a live progress display stands in for, as rich's own console
            stream = getattr(stream, "rich_proxied_file", stream)  # writes: else its lines would come back here
        return cast(TextIO | None, stream)

    def _guarded(self, text: str) -> str:
        if self._line_start:
            head, rest = "", text
        else:
            head, newline, rest = text.partition("\n")
            head += newline
        last = text.rpartition("\n")[2]
        self._line_start = (self._line_start or "\n" in text) and not last.strip()
        return head + _COMMAND.sub(lambda m: m[1] + f"\\x{ord(m[2]):02x}", rest)

    def write(self, text: str) -> int:
        if (stream := self._stream) is not None:
            stream.write(self._guarded(text))
        return len(text)

    def flush(self) -> None:
        if (stream := self._stream) is not None:
            stream.flush()

    def isatty(self) -> bool:
        return (stream := self._stream) is not None and stream.isatty()

    def fileno(self) -> int:
        stream = self._stream
        if stream is None:
            raise io.UnsupportedOperation("no stream")
        return stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # read-only here: the current stream's
        return getattr(self._stream, "encoding", None) or "utf-8"


class StdoutUntilClosed(_Guarded):
    """Stdout until a write finds the pipe closed; then that descriptor points at /dev/null, so
    the interpreter's last flush cannot fail either."""

    def __init__(self) -> None:
        super().__init__("stdout")
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                super().write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                super().flush()
            except BrokenPipeError:
                self._drop()

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


def guarded_stderr() -> TextIO:
    """Stderr with no line beginning with a workflow command."""
    return cast(TextIO, _Guarded("stderr"))
