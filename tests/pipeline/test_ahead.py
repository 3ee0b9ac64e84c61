"""The next haystacks are analysed in a worker process; a run must not wait for that worker to
start (a spawned interpreter imports the caller's main module: the `harness` command's whole CLI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SLOW_MAIN_MODULE = """
import json, sys, time
if __name__ != "__main__":
    time.sleep(8)  # a main module as slow to import in the spawned worker as a heavy CLI
else:
    from harness.models.haystack import Document, Haystack
    from harness.pipeline.ahead import analysed_ahead
    from harness.pipeline.haystack import turn_text
    from harness.text import content_texts

    haystacks = [
        Haystack(f"h{n}", tuple(Document(f"d{n}.{i}", "s", f"The {n} turn, number {i}!", "user", None) for i in range(50)), ())
        for n in range(20)
    ]
    started = time.perf_counter()
    got = analysed_ahead(iter(haystacks))
    first = next(got)
    waited = time.perf_counter() - started
    analysed = [first, *got]
    same = all(a == content_texts([turn_text(d) for d in h.documents]) and h is w for (h, a), w in zip(analysed, haystacks))
    print(json.dumps({"first_after_s": waited, "haystacks": len(analysed), "same": same}))
"""


def test_the_first_haystacks_do_not_wait_for_the_worker_to_start(tmp_path: Path) -> None:
    script = tmp_path / "slow_main.py"
    script.write_text(SLOW_MAIN_MODULE)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["haystacks"] == 20
    assert seen["same"]
    assert seen["first_after_s"] < 4, "the first haystack waited for the worker's start"


def test_a_run_of_no_more_haystacks_than_are_analysed_ahead_starts_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller would analyse them all itself before a spawned worker gave its first result."""
    import multiprocessing

    from harness.models.haystack import Document, Haystack
    from harness.pipeline import ahead
    from harness.pipeline.haystack import turn_text
    from harness.text import content_texts

    def no_worker(*_: object, **__: object) -> None:
        raise AssertionError("a worker was started")

    haystacks = [
        Haystack(f"h{n}", tuple(Document(f"d{n}.{i}", "s", f"Turn {i} of {n}", "user", None) for i in range(3)), ())
        for n in range(ahead.AHEAD)
    ]
    monkeypatch.setattr(multiprocessing, "get_context", no_worker)
    analysed = list(ahead.analysed_ahead(iter(haystacks)))
    assert [h for h, _ in analysed] == haystacks
    assert [a for _, a in analysed] == [content_texts([turn_text(d) for d in h.documents]) for h in haystacks]
