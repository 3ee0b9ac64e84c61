"""Dropping what a run created on an engine: a failure is reported, never swallowed.

A namespace left behind holds the run's data on the server (a timed-out conversation turn left
1.6 M keys on Redis while the run went on). A drop that fails ends the run with `TeardownFailed`
(exit 3; the finished part is reported as incomplete), unless the backend was lost, which the
results already say (exit 3), or another error is already ending the run.
"""

from __future__ import annotations

import sys
from typing import Protocol

from harness.backends.failures import connection_lost
from harness.errors import HarnessError
from harness.messages import masked, one_line


class Droppable(Protocol):
    """An engine index, or anything else a run created that `drop` removes."""

    def drop(self) -> None: ...


class TeardownFailed(HarnessError):
    """What a run created could not be dropped: the server still holds it."""

    exit_code = 3


def drop(index: Droppable, what: str) -> None:
    """Drop `index` (the data of `what`); call it in a `finally`."""
    ending = sys.exc_info()[1] is not None  # an error, an interruption or a generator's close propagates
    try:
        index.drop()
    except Exception as exc:
        if ending or connection_lost(exc):
            return
        raise TeardownFailed(f"could not drop the data of {what}: {masked(one_line(exc))}") from exc


class Closable(Protocol):
    """A memory system under test, or a runner of several."""

    def close(self) -> None: ...


def close(system: Closable) -> None:
    """Close `system` in a `finally`. While an error or an interruption is already ending the block,
    a failure to close (a connection that Ctrl-C left mid-reply) must not take its place."""
    ending = sys.exc_info()[1] is not None
    try:
        system.close()
    except Exception:
        if not ending:
            raise
