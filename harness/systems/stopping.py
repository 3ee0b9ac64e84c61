"""A run's stop as a worker thread sees it (`--concurrency`): a signal reaches only the main
thread, so a worker learns of it here, between requests, and a system's long operation (an add of
a haystack's turns one request at a time) ends at the next request rather than after the last.

The crew sets the run's stop event for each of its workers (`watching`); `check` raises `Stopped`
there once it is set, and does nothing on any other thread (a serial run is interrupted by the
signal itself).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_watched = threading.local()


class Stopped(BaseException):
    """The run stopped while this worker's task went on: like an interrupt, no `except Exception`
    takes it, so the task ends (its namespace dropped in its `finally`) and is not an item's error."""


@contextmanager
def watching(stop: threading.Event) -> Iterator[None]:
    """On this thread, for the block, `check` raises once `stop` is set."""
    _watched.stop = stop
    try:
        yield
    finally:
        del _watched.stop


def check() -> None:
    """Raise `Stopped` where this thread is a worker of a run that has stopped."""
    stop: threading.Event | None = getattr(_watched, "stop", None)
    if stop is not None and stop.is_set():
        raise Stopped("the run stopped")
