"""`harness bench --service-latency-ms`: a dataset through the local latency service at each
concurrency, each report compared with the first's item by item."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.benchmarks.concurrency import Target, bench_concurrency, bench_system
from tests.reports.pages import harness


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def test_each_concurrency_reports_what_the_first_does() -> None:
    rows = bench_concurrency("builtin", [1.0], [1, 3], batch=2)
    assert [(r.latency_ms, r.concurrency, r.same) for r in rows] == [(1.0, 1, True), (1.0, 3, True)]
    assert rows[0].requests == rows[1].requests > 0  # the same requests, however many at once
    assert rows[0].speedup == 1.0


def test_the_command_prints_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("bench", "--service-latency-ms", "0", "--concurrency", "1", "--concurrency", "2", "--dataset", "builtin")
    assert harness(tmp_path, *args) == 0
    out = capsys.readouterr().out
    assert "concurrency benchmark" in out
    assert "builtin, all questions, bm25, one record per POST /add" in out
    assert out.count(" yes ") == 2


def test_other_benchmarks_do_not_mix_with_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness(tmp_path, "bench", "--service-latency-ms", "10", "--datasets") == 2
    err = capsys.readouterr().err
    assert "--service-latency-ms is its own benchmark" in err
    assert "Traceback" not in err


def test_an_in_process_system_at_each_concurrency_reports_what_the_first_does() -> None:
    """The reference pipeline on the embedded engine, the built-in haystacks at 1 and 3 at once:
    the same report, questions per second of each run, and no protocol operations counted (the
    kinds drive it directly)."""
    rows = bench_system("builtin", Target("reference"), [1, 3])
    assert [(r.concurrency, r.same, r.same_records) for r in rows] == [(1, True, True), (3, True, True)]
    assert all(r.questions_per_s > 0 and r.operations_per_s is None and r.records_per_s is None for r in rows)
    assert rows[0].speedup == 1.0


def test_the_system_benchmark_prints_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("bench", "--system", "reference", "--concurrency", "1", "--concurrency", "2", "--dataset", "builtin")
    assert harness(tmp_path, *args, "-m", "bm25", "-m", "hybrid") == 0
    out = capsys.readouterr().out
    assert "reference on embedded, builtin, all questions, bm25, hybrid" in out
    assert out.count(" yes ") == 4  # same report and same records, in both rows


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("--system", "popoto"), "system 'popoto' does not run on embedded"),
        (("--system", "reference", "--service-latency-ms", "10"), "--system is its own benchmark"),
        (("--mode", "bm25", "--service-latency-ms", "10"), "--mode applies to --system only"),
    ],
)
def test_a_system_benchmark_it_cannot_run_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], error: str
) -> None:
    assert harness(tmp_path, "bench", *args) == 2
    err = capsys.readouterr().err
    assert error in err
    assert "Traceback" not in err
