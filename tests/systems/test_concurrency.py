"""`--concurrency N`: every kind through a service that answers in random order, after random
delays, reports item by item what a serial run reports, in the same order; only latencies and
the run's throughput differ. The service's declared `max_concurrency` is never exceeded, a system
that runs serially says so, and a run interrupted at N > 1 stops every worker, reports what
finished and leaves nothing on the service."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.backends.base import IndexSpec
from harness.backends.embedded import EmbeddedBackend, EmbeddedIndex
from harness.backends.registry import connect
from harness.errors import Interrupted
from harness.evaluation.crew import Crew
from harness.evaluation.kind import Engine, KindOptions
from harness.evaluation.kinds import kinds_for
from harness.evaluation.runner import run
from harness.pipeline.settings import Mode
from harness.systems import http, stopping
from harness.systems.bound import REFERENCE_BOUND, bind_on_engine
from harness.systems.protocol import Opening, Record
from tests.faults.helpers import Watched, reports, write_suite
from tests.reports.pages import harness
from tests.systems.memory_server import Store, serving
from tests.systems.same_report import timeless

DELAY_S = 0.01
"""Each request waits up to this long on the service: requests in flight together finish in any order."""


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def _run(folder: Path, url: str, suite: str, concurrency: int) -> tuple[int, dict[str, Any]]:
    out = folder / f"at{concurrency}"
    code = harness(
        folder, "run", "--system", f"http:{url}", "-s", suite, "-m", "bm25", "--out", str(out),
        "--concurrency", str(concurrency),
    )  # fmt: skip
    (path,) = [p for p in out.glob("*.json") if "latest" not in p.name]
    return code, json.loads(path.read_text())


KINDS = [
    pytest.param("builtin", ("scopes", "replace"), id="beliefs"),
    pytest.param("haystack:builtin", ("scopes",), id="haystack"),
    pytest.param("lifecycle:builtin", ("timestamps", "clock", "access", "consolidation"), id="lifecycle"),
    pytest.param("conversation:builtin", ("budget",), id="conversation"),
]


@pytest.mark.parametrize(("suite", "capabilities"), KINDS)
def test_every_kind_reports_at_n_what_it_reports_serially(
    tmp_path: Path, suite: str, capabilities: tuple[str, ...]
) -> None:
    store = Store(extended=True, capabilities=capabilities, delay=DELAY_S)
    with serving(store) as url:
        serial_code, serial = _run(tmp_path, url, suite, 1)
        assert store.most_in_flight == 1
        assert store.records == {}
        parallel_code, parallel = _run(tmp_path, url, suite, 4)
    assert 1 < store.most_in_flight <= 4  # several at once, never more than asked
    assert store.records == {}  # every namespace dropped
    assert serial["not_applicable"] is None
    assert (serial["concurrency"], parallel["concurrency"]) == (1, 4)
    assert parallel_code == serial_code
    assert [row["id"] for row in parallel["view"]["rows"]] == [row["id"] for row in serial["view"]["rows"]]
    assert timeless(parallel) == timeless(serial)
    assert len(serial[serial["view"]["items"]]) > 1
    throughput = parallel["throughput"]
    assert throughput["operations"] == serial["throughput"]["operations"] > 0
    assert throughput["records_added"] == serial["throughput"]["records_added"] > 0
    assert throughput["operations_per_s"] > 0


def test_errors_and_the_threshold_are_as_in_a_serial_run(tmp_path: Path) -> None:
    """A service answering ids it was never given: each such result an error, the run over the
    error threshold (exit 1), the same results at 1 and at 4."""
    store = Store(extended=True, mangle=True, delay=DELAY_S)
    with serving(store) as url:
        serial_code, serial = _run(tmp_path, url, "builtin", 1)
        parallel_code, parallel = _run(tmp_path, url, "builtin", 4)
    assert serial_code == parallel_code == 1
    errors = [case["error"] for case in serial["cases"] if case["error"]]
    assert errors
    assert [case["error"] for case in parallel["cases"] if case["error"]] == errors
    assert timeless(parallel) == timeless(serial)


def test_the_declared_max_concurrency_is_never_exceeded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(extended=True, delay=DELAY_S, max_concurrency=2, gather=2)
    with serving(store) as url:
        code, report = _run(tmp_path, url, "builtin", 8)
    assert code == 0
    assert store.most_in_flight == 2
    assert report["concurrency"] == 2
    assert "runs at concurrency 2, not 8: it takes at most 2 at once" in capsys.readouterr().err


def _reference(folder: Path, suite: str, modes: tuple[str, ...], concurrency: int, *backend: str) -> dict[str, Any]:
    out = folder / f"{suite.replace(':', '-')}-at{concurrency}"
    options = [option for mode in modes for option in ("-m", mode)]
    code = harness(folder, "run", "-s", suite, *options, *backend, "--out", str(out), "--concurrency", str(concurrency))
    assert code == 0
    (path,) = [p for p in out.glob("*.json") if "latest" not in p.name]
    report: dict[str, Any] = json.loads(path.read_text())
    return report


REFERENCE_KINDS = [
    pytest.param("builtin", ("bm25", "hybrid"), id="beliefs"),
    pytest.param("haystack:builtin", ("bm25", "hybrid"), id="haystack"),
    pytest.param("lifecycle:builtin", ("bm25",), id="lifecycle"),
    pytest.param("conversation:builtin", ("bm25",), id="conversation"),
]


@pytest.mark.parametrize(("suite", "modes"), REFERENCE_KINDS)
def test_the_reference_pipeline_reports_at_n_what_it_reports_serially(
    tmp_path: Path, suite: str, modes: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference pipeline on the embedded engine runs its tasks on 4 workers (no limit of its
    own: each namespace an in-memory database of its own), every number as a serial run has it."""
    serial = _reference(tmp_path, suite, modes, 1)
    parallel = _reference(tmp_path, suite, modes, 4)
    assert (serial["concurrency"], parallel["concurrency"]) == (1, 4)
    assert "runs at concurrency" not in capsys.readouterr().err
    assert [row["id"] for row in parallel["view"]["rows"]] == [row["id"] for row in serial["view"]["rows"]]
    assert len(serial[serial["view"]["items"]]) > 1
    assert timeless(parallel) == timeless(serial)


@pytest.mark.parametrize("backend", ["postgres", "redis", "redis-core", "valkey"])
def test_the_reference_pipeline_on_a_server_reports_at_n_what_it_reports_serially(
    tmp_path: Path, backend: str, server_url: Callable[[str], str]
) -> None:
    """On each server engine: a belief suite (its static cases read one shared namespace at once,
    each session case writes its own) and the haystacks, in hybrid, on 4 workers, each
    with a connection of its own where the client is not shared (postgres)."""
    server = ("-b", backend, "--url", server_url(backend), *(["--allow-extension"] if backend == "postgres" else []))
    for suite in ("builtin", "haystack:builtin"):
        serial = _reference(tmp_path, suite, ("hybrid",), 1, *server)  # hybrid: bm25's and the vectors' searches
        parallel = _reference(tmp_path, suite, ("hybrid",), 4, *server)
        assert parallel["concurrency"] == 4
        assert timeless(parallel) == timeless(serial)


def test_an_interrupted_run_stops_every_worker_and_keeps_what_finished() -> None:
    """Interrupted after 10 finished cases at concurrency 4: no request is in flight once the run
    returns, the cases that finished are reported in their serial order, and nothing of the run
    is left on the service."""
    store = Store(extended=True, delay=DELAY_S)
    plan = kinds_for(["builtin"], KindOptions([Mode.BM25]), {})
    (kind,) = [p.kind for p in plan]
    serial_order = list(kind.item_ids())
    seen: list[str] = []

    def interrupt_after_ten(item: str) -> None:
        seen.append(item)
        if len(seen) == 10:
            raise Interrupted("SIGINT", 130)

    with serving(store) as url:
        backend = connect("embedded")
        bound = bind_on_engine(http.spec(url), backend, "embedded", None, None, recorded=False)
        outcome = run(kind, Engine(backend, None, (Mode.BM25,), bound, Crew(4)), interrupt_after_ten)
        assert store.in_flight == 0
        assert store.records == {}
    assert isinstance(outcome.stopped, Interrupted)
    assert 10 <= outcome.done < len(serial_order)
    ids = [r.item_id for r in outcome.results]
    assert len(ids) == outcome.done  # every finished case, those finished after the interrupt too
    assert ids == sorted(ids, key=serial_order.index)
    assert set(seen) <= set(ids)


def test_an_interrupted_reference_run_at_n_keeps_what_finished_and_drops_every_namespace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reference pipeline on the embedded engine, interrupted after 10 finished cases at 4 at
    once: the finished cases in serial order, and each namespace a worker opened dropped (each
    an in-memory database of its own, closed) before the run returns."""
    plan = kinds_for(["builtin"], KindOptions([Mode.BM25]), {})
    (kind,) = [p.kind for p in plan]
    serial_order = list(kind.item_ids())
    created: list[EmbeddedIndex] = []
    dropped: list[EmbeddedIndex] = []
    create, drop = EmbeddedBackend.create_index, EmbeddedIndex.drop

    def counted_create(backend: EmbeddedBackend, namespace: str, spec: IndexSpec) -> EmbeddedIndex:
        created.append(create(backend, namespace, spec))
        return created[-1]

    def counted_drop(index: EmbeddedIndex) -> None:
        dropped.append(index)
        drop(index)

    monkeypatch.setattr(EmbeddedBackend, "create_index", counted_create)
    monkeypatch.setattr(EmbeddedIndex, "drop", counted_drop)
    seen: list[str] = []

    def interrupt_after_ten(item: str) -> None:
        seen.append(item)
        if len(seen) == 10:
            raise Interrupted("SIGINT", 130)

    engine = Engine(EmbeddedBackend(), None, (Mode.BM25,), REFERENCE_BOUND, Crew(4))
    outcome = run(kind, engine, interrupt_after_ten)
    assert isinstance(outcome.stopped, Interrupted)
    assert 10 <= outcome.done < len(serial_order)
    ids = [r.item_id for r in outcome.results]
    assert len(ids) == outcome.done
    assert ids == sorted(ids, key=serial_order.index)
    assert created  # the static cases' shared namespace, opened on a worker
    assert {id(index) for index in dropped} == {id(index) for index in created}


CASES = 400
"""Cases of the suite the signal test interrupts: at 4 at once with up to 10 ms each, far from done after 20."""


def test_sigint_at_n_writes_the_finished_cases_as_an_incomplete_report(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", CASES, memories=50)
    store = Store(extended=True, delay=DELAY_S)
    out = tmp_path / "out"
    with serving(store) as url:
        args = ("run", "--system", f"http:{url}", "-m", "bm25", "-s", str(suite), "--concurrency", "4")
        with Watched(*args, "--out", str(out), cwd=tmp_path) as watched:
            watched.wait_progress("cases", 20)
            watched.process.send_signal(signal.SIGINT)
            assert watched.finish() == 130, watched.stderr[-3000:]
        assert store.in_flight == 0
        assert store.records == {}  # each worker's namespace, and the shared one, dropped
    (line,) = watched.harness_lines()
    assert line.startswith("harness: interrupted by SIGINT: run on embedded after "), line
    assert "Traceback" not in watched.stderr
    (path,) = reports(out, "run-embedded-*incomplete-*.json")
    report = json.loads(path.read_text())
    finished = len(report["cases"])
    assert 20 <= finished < CASES
    assert f"after {finished} of {CASES} cases" in report["incomplete_reason"]


def test_a_long_add_ends_at_the_next_request_once_the_run_stops() -> None:
    """A worker's add of many records, one request each, checks the run's stop between requests:
    Ctrl-C at N > 1 waits for one request per worker, not for a haystack's whole ingest."""
    store = Store(extended=True)
    stop = threading.Event()
    answer = store.add

    def add_then_stop(body: dict[str, Any]) -> dict[str, Any]:
        if store.adds == 4:
            stop.set()  # the run stops while the fifth record is being added
        return answer(body)

    store.add = add_then_stop  # type: ignore[method-assign]
    records = [Record(f"r{i}", f"record {i}", "u") for i in range(50)]
    with serving(store) as url, stopping.watching(stop):
        opened = http.spec(url).open(Opening(connect("embedded"), "embedded", None, "h0stop"))
        with pytest.raises(stopping.Stopped):
            opened.add(records)
    assert store.adds == 5
