"""Ctrl-C at `--concurrency 4` on a server backend: every worker stops, the finished cases are the
incomplete report, the service keeps nothing of the run and the run's container is removed. On one
server: the workers' stop is the engine's concern only through its container, whose removal on a
signal tests/faults/test_signals.py checks on every server."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.faults.helpers import Watched, containers_of, reports, write_suite
from tests.systems.memory_server import Store, serving

CASES = 400
"""At 4 at once with up to 10 ms each, far from done when the signal comes after 20."""


@pytest.mark.usefixtures("local_images")
def test_sigint_at_n_removes_the_container_and_keeps_the_finished_cases(
    one_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = one_server
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    suite = write_suite(tmp_path / "suite", CASES, memories=50)
    store = Store(extended=True, delay=0.01)
    out = tmp_path / "out"
    with serving(store) as url:
        args = ("run", "-b", server, "--system", f"http:{url}", "-m", "bm25", "-s", str(suite), "--concurrency", "4")
        with Watched(*args, "--out", str(out), cwd=tmp_path) as run:
            run.wait_progress("cases", 20)
            assert containers_of(run.process.pid), "the run's container must exist while it runs"
            run.process.send_signal(signal.SIGINT)
            assert run.finish() == 130, run.stderr[-3000:]
            assert containers_of(run.process.pid) == [], "Ctrl-C must remove the run's container"
        assert store.in_flight == 0
        assert store.records == {}
    (line,) = run.harness_lines()
    assert line.startswith(f"harness: interrupted by SIGINT: run on {server} after "), line
    (path,) = reports(out, f"run-{server}-*incomplete-*.json")
    report = json.loads(path.read_text())
    assert report["concurrency"] == 4
    assert 20 <= len(report["cases"]) < CASES
