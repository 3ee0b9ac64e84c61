"""The concurrency benchmark: a dataset through a local service that takes a fixed time per request
(`latency_service.py`), at each concurrency, timed, with its score sheets and rows compared to the
serial run's (`harness bench --service-latency-ms MS --concurrency N ...`); or through a system
that runs in this process, the reference pipeline, Popoto or mem0, on an engine (`harness bench
--system NAME -b BACKEND --concurrency N ...`), to find where it saturates.

Each row is one whole `harness run` (the matrix's own path: the same kind, runner and report) in a
fresh report folder; its wall time is the runner's, its requests the HTTP requests the service
answered during it (the probe's and every namespace's included), per second of that wall time. "same" says whether the report equals the first concurrency's item by item, latencies
and timings aside (the score sheets included).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.benchmarks.latency_service import latency_service
from harness.evaluation.kinds.haystack.spec import HaystackOptions
from harness.evaluation.matrix import MatrixRequest, run_matrix
from harness.pipeline.settings import Mode
from harness.reports.document import TIMING
from harness.suites.sampling import SampleMethod

_VARYING = {"latency_ms", "latency_s", "p50_ms", "p95_ms", "timing", "embed_s", "ingest_s", "checksum", *TIMING}
"""What differs between two runs of the same items however many run at once: how long each took."""


@dataclass(frozen=True)
class Row:
    latency_ms: float
    concurrency: int
    wall_s: float
    requests: int
    requests_per_s: float
    speedup: float
    same: bool


def _comparable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items() if k not in _VARYING}
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    return value


@dataclass(frozen=True)
class Target:
    """What a run goes through: `system` on `backend` (its server at `url`; None: in process), in `modes`."""

    system: str
    backend: str = "embedded"
    url: str | None = None
    modes: tuple[Mode, ...] = (Mode.BM25,)


def _run(
    dataset: str, target: Target, concurrency: int, limit: int | None, file: Path | None, out: Path
) -> dict[str, Any]:
    own = {"haystack": HaystackOptions(file=file, sample=SampleMethod.STRIDE)}
    request = MatrixRequest(
        suites=[f"haystack:{dataset}"],
        own=own,
        backends=[target.backend],
        systems=[target.system],
        modes=target.modes,
        out=out,
        limit=limit,
        url=target.url,
        allow_extension=True,  # the benchmark's own server, or one the user gave it to work on
        concurrency=concurrency,
    )
    outcome = run_matrix(request)
    (kind_run,) = outcome.runs
    report: dict[str, Any] = json.loads(kind_run.finished.paths[0].read_text())
    return report


def bench_concurrency(
    dataset: str,
    latencies_ms: Sequence[float],
    concurrencies: Sequence[int],
    limit: int | None = None,
    file: Path | None = None,
    batch: int = 1,
    say: Callable[[str], None] = lambda _: None,
) -> list[Row]:
    """Per latency, the dataset (its first `limit` questions by stride: every haystack of the file,
    fewer questions) run at each concurrency through a fresh service; the first concurrency is the
    one the others are compared with."""
    rows: list[Row] = []
    for latency in latencies_ms:
        first: tuple[float, Any] | None = None
        with latency_service(latency / 1000.0, batch) as service, tempfile.TemporaryDirectory() as folder:
            for concurrency in concurrencies:
                before = service.requests
                target = Target(f"http:{service.url}")
                report = _run(dataset, target, concurrency, limit, file, Path(folder) / f"c{concurrency}")
                wall, requests = float(report["wall_s"]), service.requests - before
                if first is None:
                    first = (wall, _comparable(report))
                row = Row(
                    latency,
                    int(report["concurrency"]),
                    wall,
                    requests,
                    requests / wall if wall > 0 else 0.0,
                    first[0] / wall if wall > 0 else 0.0,
                    _comparable(report) == first[1],
                )
                say(
                    f"{latency:g} ms, concurrency {row.concurrency}: {row.wall_s:.1f} s, "
                    f"{row.requests_per_s:.1f} requests/s, x{row.speedup:.2f}, same: {row.same}"
                )
                rows.append(row)
    return rows


HEADER = ("latency ms", "concurrency", "wall s", "requests", "requests/s", "speed-up", "same report")


def cells(row: Row) -> tuple[str, ...]:
    return (
        f"{row.latency_ms:g}",
        str(row.concurrency),
        f"{row.wall_s:.1f}",
        str(row.requests),
        f"{row.requests_per_s:.1f}",
        f"x{row.speedup:.2f}",
        "yes" if row.same else "NO",
    )


@dataclass(frozen=True)
class SystemRow:
    """One concurrency of an in-process system: the run's wall time, the questions and protocol
    operations (None for the reference pipeline, which the kinds drive directly) per second of it."""

    concurrency: int
    wall_s: float
    questions_per_s: float
    operations_per_s: float | None
    records_per_s: float | None
    speedup: float
    same: bool
    same_records: bool
    """Each question retrieved the same records in every level, in whatever order (a system that
    orders ties differently from one run to the next, as Popoto does, differs only in `same`)."""


def _retrieved(report: Mapping[str, Any]) -> list[tuple[str, str | None, str, frozenset[str]]]:
    return [
        (q["id"], q["mode"], level, frozenset(doc for doc, _ in found["retrieved"]))
        for q in report["questions"]
        for level, found in q.get("levels", {}).items()
    ]


def _per_s(count: int | None, wall_s: float) -> float | None:
    return None if count is None else count / wall_s if wall_s > 0 else 0.0


def bench_system(
    dataset: str,
    target: Target,
    concurrencies: Sequence[int],
    limit: int | None = None,
    file: Path | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> list[SystemRow]:
    """The dataset (its first `limit` questions by stride) through `target` at each concurrency;
    the first concurrency is the one the others are compared with. A system that takes fewer than
    asked runs at its most (the row says which)."""
    rows: list[SystemRow] = []
    first: tuple[float, Any, Any] | None = None
    with tempfile.TemporaryDirectory() as folder:
        for concurrency in concurrencies:
            report = _run(dataset, target, concurrency, limit, file, Path(folder) / f"c{concurrency}")
            wall, done = float(report["wall_s"]), report["throughput"]
            if first is None:
                first = (wall, _comparable(report), _retrieved(report))
            row = SystemRow(
                int(report["concurrency"]),
                wall,
                done["items"] / wall if wall > 0 else 0.0,
                _per_s(done["operations"], wall),
                _per_s(done["records_added"], wall),
                first[0] / wall if wall > 0 else 0.0,
                _comparable(report) == first[1],
                _retrieved(report) == first[2],
            )
            say(
                f"{target.system} on {target.backend}, concurrency {row.concurrency}: {row.wall_s:.1f} s, "
                f"{row.questions_per_s:.1f} questions/s, x{row.speedup:.2f}, same: {row.same}"
            )
            rows.append(row)
    return rows


SYSTEM_HEADER = (
    "concurrency",
    "wall s",
    "questions/s",
    "operations/s",
    "records/s",
    "speed-up",
    "same report",
    "same records",
)


def system_cells(row: SystemRow) -> tuple[str, ...]:
    return (
        str(row.concurrency),
        f"{row.wall_s:.1f}",
        f"{row.questions_per_s:.1f}",
        "n/a" if row.operations_per_s is None else f"{row.operations_per_s:.1f}",
        "n/a" if row.records_per_s is None else f"{row.records_per_s:.1f}",
        f"x{row.speedup:.2f}",
        "yes" if row.same else "NO",
        "yes" if row.same_records else "NO",
    )
