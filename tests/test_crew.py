"""The crew behind `--concurrency`: tasks on worker threads, at most `size` at once, each step
with its serial position; an error in a task ends the run; closing it stops every worker, each
task's `finally` run on its worker, and keeps the steps that finished meanwhile."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import pytest

from harness.evaluation.crew import Crew
from harness.evaluation.kind import Step


class _Tasks:
    """`count` tasks of `steps` steps each, sleeping a random moment before each; counts how many run at once."""

    def __init__(self, count: int, steps: int = 3, fail: int | None = None) -> None:
        self.count, self.steps, self.fail = count, steps, fail
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.closed: list[int] = []

    def __iter__(self) -> Iterator:
        return (lambda number=number: self._task(number) for number in range(self.count))

    def _task(self, number: int) -> Iterator[Step]:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            for index in range(self.steps):
                time.sleep(random.uniform(0.001, 0.004))
                if number == self.fail and index == 1:
                    raise ValueError(f"task {number} failed")
                yield Step(f"{number}.{index}", [])
        finally:
            with self.lock:
                self.running -= 1
                self.closed.append(number)


def _ids(steps: list[Step]) -> list[str]:
    return [s.item_id for s in sorted(steps, key=lambda s: s.position)]


@pytest.mark.parametrize("size", [1, 4])
def test_every_step_comes_back_with_its_serial_position(size: int) -> None:
    tasks = _Tasks(20)
    steps = list(Crew(size).steps(tasks))
    assert _ids(steps) == [f"{n}.{i}" for n in range(20) for i in range(3)]
    assert tasks.most == size
    assert sorted(tasks.closed) == list(range(20))


def test_positions_go_on_across_calls() -> None:
    crew = Crew(3)
    first, second = list(crew.steps(_Tasks(2))), list(crew.steps(_Tasks(2)))
    assert {s.position[0] for s in first} == {0, 1}
    assert {s.position[0] for s in second} == {2, 3}


def test_an_error_in_a_task_is_raised_and_every_worker_stops() -> None:
    tasks = _Tasks(30, fail=5)
    crew = Crew(4)
    with pytest.raises(ValueError, match="task 5 failed"):
        list(crew.steps(tasks))
    assert tasks.running == 0  # every worker was waited for
    assert len(tasks.closed) < 30  # no task started after the error


def test_a_stopped_run_keeps_what_finished_and_runs_every_finally() -> None:
    tasks = _Tasks(30, steps=5)
    crew = Crew(4)
    steps = crew.steps(tasks)
    taken = [next(steps) for _ in range(6)]
    steps.close()  # what an interrupt or a stopping error does to the runner's loop
    assert tasks.running == 0
    assert len(tasks.closed) < 30
    finished = taken + crew.left
    assert len({s.position for s in finished}) == len(finished)
    started = sorted(tasks.closed)
    assert started == list(range(len(started)))  # tasks start in their serial order
