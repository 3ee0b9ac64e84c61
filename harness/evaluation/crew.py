"""Items of a run in flight together: `--concurrency N` runs up to N of a kind's tasks at once.

A kind splits its run into tasks that share nothing (a haystack, a scenario, a session case, a
static case: each in a namespace of its own, or only reading one) and hands them to the engine's
crew in their serial order. At size 1 every task runs on the calling thread, one after another,
as a serial run always did. At size N each task runs on a worker thread of its own, at most N at a
time, and its steps come back to the calling thread as they finish, so progress counts finished
work across workers; each step carries its serial position (task, step within it), by which the
runner reports the results in the order a serial run has them, whatever order they finished in.

Tasks are pulled from their iterable on the calling thread, only as a worker frees, so reading
the next haystack happens there, in order. When the caller stops (an interrupt, an error that ends
the run, the generator closed), no task starts again and each worker stops after the step it is
in, or at its next request within a long add (`systems.stopping`), its task's generator closed on
its own thread so that its `finally` drops its namespace; the crew waits for every worker before
it goes on, so the backend session is torn down after the last request. Steps that finished but were not yet taken are kept in `left`, which the runner reports
with the rest, so an interrupted run keeps every item it finished.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

from harness.systems import stopping

S = TypeVar("S")
Task = Callable[[], Iterator[S]]
"""One unit of work that shares nothing with the others: called on its worker, it yields its
steps (`kind.Step`s: frozen dataclasses with a `position`, which the crew sets)."""

MAX_CONCURRENCY = 256
"""The most workers a run may ask for (`--concurrency`): one thread each."""
_POLL_S = 0.2
"""How long the calling thread waits for a worker at a time (a signal is handled between waits)."""


@dataclass(frozen=True, slots=True)
class _Message:
    step: Any
    """A finished step, or None when the task ended (`error`: why it ended early, if it raised)."""
    error: BaseException | None = None


@dataclass
class Crew:
    """The workers of one run: `size` tasks at most in flight (1: serial, on the calling thread)."""

    size: int = 1
    left: list[Any] = field(default_factory=list)
    """Steps that finished after the run stopped taking them (reported with the rest)."""
    _tasks: int = 0

    def steps(self, tasks: Iterable[Task[S]]) -> Iterator[S]:
        """Every task's steps, each with its serial position; in finishing order at size > 1.
        Several calls in one run number their tasks on from the last call's."""
        return self._inline(tasks) if self.size <= 1 else self._threaded(tasks)

    def _number(self) -> int:
        self._tasks += 1
        return self._tasks - 1

    def _inline(self, tasks: Iterable[Task[S]]) -> Iterator[S]:
        for task in tasks:
            number = self._number()
            produced = task()
            try:
                for index, step in enumerate(produced):
                    yield _placed(step, (number, index))
            finally:
                _close(produced)

    def _threaded(self, tasks: Iterable[Task[S]]) -> Iterator[S]:
        inbox: queue.SimpleQueue[_Message] = queue.SimpleQueue()
        stop = threading.Event()
        workers: list[threading.Thread] = []
        pending = iter(tasks)
        busy = 0
        try:
            while True:
                while busy < self.size and (task := next(pending, None)) is not None:
                    worker = threading.Thread(
                        target=_work, args=(task, self._number(), inbox, stop), name="harness-worker", daemon=True
                    )
                    worker.start()
                    workers.append(worker)
                    busy += 1
                if busy == 0:
                    return
                message = _take(inbox)
                if message.step is None:
                    busy -= 1
                    if message.error is not None:
                        raise message.error
                    continue
                yield cast(S, message.step)
        finally:
            stop.set()
            for worker in workers:
                worker.join()
            while not inbox.empty():
                if (step := inbox.get().step) is not None:
                    self.left.append(step)


def _placed(step: S, position: tuple[int, int]) -> S:
    return cast(S, replace(cast(Any, step), position=position))


def _take(inbox: queue.SimpleQueue[_Message]) -> _Message:
    """The next message, waiting in short spans so that Ctrl-C reaches the calling thread at once."""
    while True:
        try:
            return inbox.get(timeout=_POLL_S)
        except queue.Empty:
            continue


def _work(task: Task[Any], number: int, inbox: queue.SimpleQueue[_Message], stop: threading.Event) -> None:
    """One task on its worker: each step posted as it finishes; after `stop`, none begins."""
    error: BaseException | None = None
    produced: Iterator[Any] | None = None
    try:
        with stopping.watching(stop):
            produced = task()
            for index, step in enumerate(produced):
                inbox.put(_Message(_placed(step, (number, index))))
                if stop.is_set():
                    break
    except BaseException as exc:  # noqa: BLE001 - handed to the calling thread, which raises it
        error = exc
    finally:
        try:
            _close(produced)
        except BaseException as exc:  # noqa: BLE001 - a teardown that failed: the calling thread raises it
            error = error or exc
        inbox.put(_Message(None, error))


def _close(produced: Iterator[Any] | None) -> None:
    """Close a task's generator where it stopped early, so its `finally` (a namespace dropped) runs here."""
    close = getattr(produced, "close", None)
    if close is not None:
        close()
