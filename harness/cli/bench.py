"""`harness bench`: the built-in run timed, the public datasets, the encoders, or `--concurrency` (a service, a system)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from harness.backends import registry
from harness.backends.provision import start_server
from harness.backends.registry import check_backend, connect
from harness.cli.app import app
from harness.cli.console import ENCODERS, out_console, print_scorecard, say
from harness.embeddings import DEFAULT_MODEL
from harness.embeddings.device import Device
from harness.errors import HarnessError
from harness.evaluation.crew import MAX_CONCURRENCY
from harness.evaluation.embedders import suite_embedder
from harness.pipeline.settings import Mode
from harness.reports.document import Scorecard


@app.command()
def bench(
    repeat: Annotated[int, typer.Option(min=1, help="Timed repetitions of the whole run.")] = 5,
    backend: Annotated[str, typer.Option("--backend", "-b")] = "embedded",
    datasets: Annotated[
        bool, typer.Option(help="Benchmark the public datasets instead: LoCoMo, LongMemEval oracle and sample.")
    ] = False,
    synthetic: Annotated[
        int,
        typer.Option(
            min=0, help="With --datasets: also a LongMemEval-S-sized file of N haystacks built from the sample."
        ),
    ] = 0,
    out: Annotated[Path, typer.Option(help="Report folder (--datasets, --embeddings).")] = Path("reports"),
    embeddings: Annotated[
        bool,
        typer.Option(help="Benchmark the encoders instead: texts/s on dataset turns and the retrieval each gives."),
    ] = False,
    model: Annotated[
        list[str],
        typer.Option(help=f"With --embeddings: encoders to compare with the float one ({', '.join(ENCODERS)})."),
    ] = list(ENCODERS),
    texts: Annotated[int, typer.Option(min=1, help="With --embeddings: LongMemEval turns timed per encoder.")] = 1000,
    device: Annotated[Device, typer.Option(help="With --embeddings: where to embed.")] = Device.AUTO,
    service_latency_ms: Annotated[
        list[float],
        typer.Option(
            min=0.0,
            rich_help_panel="Concurrency",
            help="Benchmark --concurrency instead: a dataset through a local service taking MS per request.",
        ),
    ] = [],
    concurrency: Annotated[
        list[int],
        typer.Option(min=1, max=MAX_CONCURRENCY, rich_help_panel="Concurrency", help="Concurrencies to time."),
    ] = [1, 2, 4, 8, 16],
    dataset: Annotated[
        str, typer.Option(rich_help_panel="Concurrency", help="The dataset the service is asked (bm25).")
    ] = "locomo",
    limit: Annotated[
        int | None,
        typer.Option(min=1, rich_help_panel="Concurrency", help="Only N questions (by stride: every haystack)."),
    ] = None,
    batch: Annotated[
        int, typer.Option(min=1, rich_help_panel="Concurrency", help="Records per POST /add the service declares.")
    ] = 1,
    system: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Concurrency",
            help="Benchmark --concurrency of a system in this process instead (reference, popoto, mem0) on --backend.",
        ),
    ] = None,
    mode: Annotated[
        list[Mode],
        typer.Option(
            "--mode", "-m", rich_help_panel="Concurrency", help="With --system: modes (default bm25; mem0: hybrid)."
        ),
    ] = [],
) -> int:
    """Time the whole built-in run in every mode and per-query latency; or the datasets (--datasets)."""
    if system is not None:
        if service_latency_ms or datasets or embeddings or synthetic:
            raise HarnessError(
                "--system is its own benchmark: --service-latency-ms, --datasets and --embeddings do not apply"
            )
        return _bench_system(system, check_backend(backend), mode, dataset, concurrency, limit)
    if mode:
        raise HarnessError("--mode applies to --system only")
    if service_latency_ms:
        if datasets or embeddings or synthetic:
            raise HarnessError("--service-latency-ms is its own benchmark: --datasets and --embeddings do not apply")
        return _bench_concurrency(dataset, service_latency_ms, concurrency, limit, batch)
    if embeddings:
        if datasets or synthetic:
            raise HarnessError("--embeddings is its own benchmark: --datasets and --synthetic do not apply")
        return _bench_embeddings(check_backend(backend), model, texts, device, out)
    if not datasets:
        from harness.benchmarks.builtin import bench_builtin

        bench_builtin(check_backend(backend), repeat, suite_embedder(DEFAULT_MODEL), say)
        return 0
    import functools

    from harness.benchmarks.datasets import HEADER, bench_datasets, row_cells
    from harness.embeddings.embedder import Embedder

    def cells(server_url: str | None = None) -> tuple[list, list[Path]]:
        factory = (
            functools.partial(connect, backend)
            if server_url is None
            else functools.partial(connect, backend, server_url)
        )
        return bench_datasets(
            backend_factories={backend: factory}, synthetic_haystacks=synthetic, out_dir=out, embedder_factory=Embedder
        )

    if check_backend(backend) not in registry.servers():
        rows, paths = cells()
    else:
        server_url, container = start_server(backend, f"bench-{os.getpid()}")
        try:
            rows, paths = cells(server_url)
        finally:
            container.stop()
    print_scorecard(Scorecard("dataset benchmark", HEADER, [row_cells(r) for r in rows]))
    for path in paths:
        out_console.print(f"report: {path}")
    return 0


def _bench_concurrency(
    dataset: str, latencies: list[float], concurrency: list[int], limit: int | None, batch: int
) -> int:
    from harness.benchmarks.concurrency import HEADER, bench_concurrency, cells

    rows = bench_concurrency(dataset, latencies, list(dict.fromkeys(concurrency)), limit, batch=batch, say=say)
    subset = "all questions" if limit is None else f"{limit} questions by stride"
    adds = "one record per POST /add" if batch == 1 else f"{batch} records per POST /add"
    caption = [f"{dataset}, {subset}, bm25, {adds}; speed-up over the first concurrency's wall time"]
    print_scorecard(Scorecard("concurrency benchmark", HEADER, [cells(r) for r in rows], caption))
    return 0 if all(r.same for r in rows) else 1


def _bench_system(
    system: str, backend: str, modes: list[Mode], dataset: str, concurrency: list[int], limit: int | None
) -> int:
    """The dataset through an in-process system on `backend`: on a server the benchmark starts and
    removes (its own container), or in process for the embedded engine."""
    from harness.benchmarks.concurrency import SYSTEM_HEADER, Target, bench_system, system_cells
    from harness.evaluation.matrix import matrix_axes

    matrix_axes([backend], [system])  # a one-line error for a system that does not run there
    if system.startswith("http:"):
        raise HarnessError("--system benchmarks a system in this process; an HTTP service: --service-latency-ms")
    chosen = tuple(dict.fromkeys(modes)) or ((Mode.HYBRID,) if system == "mem0" else (Mode.BM25,))
    container = None
    url = None
    if backend in registry.servers():
        url, container = start_server(backend, f"bench-{os.getpid()}")
    try:
        target = Target(system, backend, url, chosen)
        rows = bench_system(dataset, target, list(dict.fromkeys(concurrency)), limit, say=say)
    finally:
        if container is not None:
            container.stop()
    subset = "all questions" if limit is None else f"{limit} questions by stride"
    shown = ", ".join(m.value for m in chosen)
    caption = [f"{system} on {backend}, {dataset}, {subset}, {shown}; speed-up over the first concurrency's wall time"]
    print_scorecard(Scorecard("concurrency benchmark", SYSTEM_HEADER, [system_cells(r) for r in rows], caption))
    return 0 if all(r.same_records for r in rows) else 1


def _bench_embeddings(backend: str, models: list[str], texts: int, device: str, out: Path) -> int:
    import functools

    from harness.backends.embedded import EmbeddedBackend
    from harness.benchmarks.encoders import bench_encoders
    from harness.embeddings.embedder import Embedder

    if backend in registry.servers():
        raise HarnessError("bench --embeddings runs on the embedded backend: the encoders, not the engine, differ")
    bench_encoders(
        models=models,
        texts=texts,
        backend_factory=EmbeddedBackend,
        embedder_factory=functools.partial(Embedder, device=device),
        out_dir=out,
        print_line=say,
    )
    return 0
