"""`harness bench`: wall time of the whole built-in run and per-query latency, as numbers."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from harness.backends.provision import backend_session
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.runner import execute
from harness.metrics import latency_summary
from harness.pipeline import Mode
from harness.pipeline.memory_layer import TextEmbedder
from harness.suites import BUILTIN, load_suite


def bench_builtin(backend: str, repeat: int, embedder: TextEmbedder, print_line: Callable[[str], None]) -> None:
    """Each repetition loads the suite and runs every case in every mode (indexes built anew);
    a server backend's container is started once, and its start-up time reported apart."""
    walls: list[float] = []
    latencies: dict[str, list[float]] = {m.value: [] for m in Mode}
    started = time.perf_counter()
    with backend_session(backend) as engine:
        print_line(f"{backend} ready in {time.perf_counter() - started:.2f} s ({engine.info().engine})")
        for _ in range(repeat):
            start = time.perf_counter()
            results = execute(Plan([load_suite(BUILTIN)], list(Mode)), engine, embedder)
            walls.append(time.perf_counter() - start)
            for r in results:
                if r.latency_ms is not None:
                    latencies[r.mode].append(r.latency_ms / 1000.0)
    print_line(
        f"whole built-in run ({len(results)} retrievals, 3 modes) on {backend}: "
        f"best {min(walls):.3f} s, mean {statistics.mean(walls):.3f} s over {repeat} runs"
    )
    for mode, values in latencies.items():
        s = latency_summary(values)
        print_line(f"  {mode:7s} per query: p50 {s.p50_ms:.3f} ms, p95 {s.p95_ms:.3f} ms (n={s.count})")
