"""The dataset benchmark: per file, backend, granularity and mode, the time, memory and quality numbers.

Each cell runs in a fresh process, so its peak memory is its own and no cell warms another's
caches (the embedding cache on disk is shared on purpose: the benchmark measures warm-cache runs).
A LongMemEval-S-sized file can be built from the 5-question sample by repeating its haystacks.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ijson

from harness.backends.base import Backend
from harness.embeddings import Embedder
from harness.errors import HarnessError
from harness.evaluation.kind import Engine
from harness.evaluation.kinds.haystack.report import machine
from harness.evaluation.kinds.haystack.runner import HaystackKind
from harness.evaluation.kinds.haystack.summary import summarize
from harness.evaluation.runner import run
from harness.metrics.dataset_measures import HEADLINE, definition_of, label
from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode
from harness.reports import tables
from harness.reports.escape import md
from harness.reports.writer import write_run_files
from harness.suites.datasets import SPECS, Selection, find_file

SAMPLE_FILE = "longmemeval_s.sample5.json"
S_HAYSTACKS = 500
"""LongMemEval-S has 500 questions, each its own haystack of about 48 sessions."""

ROW_METRICS = (*HEADLINE, "recall@10")
"""The report tables' metrics, plus TREC recall@10 (the LoCoMo paper's evidence recall)."""


@dataclass(frozen=True, slots=True)
class BenchTarget:
    """One file to benchmark, read as `dataset` (which picks its reader and published numbers)."""

    label: str
    dataset: str
    path: Path


@dataclass(frozen=True, slots=True)
class BenchRow:
    """The numbers of one (file, backend, granularity, mode) cell at one scoring level."""

    label: str
    backend: str
    mode: str
    granularity: str
    level: str
    questions: int
    errors: int
    haystacks: int
    turns: int
    wall_s: float
    ingest_s: float
    embed_s: float
    p50_ms: float
    p95_ms: float
    peak_rss_mb: float
    metrics: dict[str, float | None]


def default_targets() -> list[BenchTarget]:
    """LoCoMo, the LongMemEval oracle and the LongMemEval-S sample, where the data folders have them."""
    wanted = [
        ("locomo", "locomo", SPECS["locomo"].files),
        ("longmemeval-oracle", "longmemeval-oracle", SPECS["longmemeval-oracle"].files),
        ("longmemeval-s sample5", "longmemeval-s", (SAMPLE_FILE,)),
    ]
    return [BenchTarget(label, dataset, path) for label, dataset, names in wanted if (path := find_file(names))]


def build_synthetic_longmemeval(sample: Path, out: Path, haystacks: int = S_HAYSTACKS) -> Path:
    """Write a LongMemEval file of `haystacks` questions by cycling the sample's records.

    Copies get `syn<n>_` prefixed to their question and session ids, so every haystack is distinct
    to the harness while texts (and so cached embeddings) repeat. Written record by record.
    """
    with sample.open("rb") as handle:
        records = list(ijson.items(handle, "item", use_float=True))
    if not records:
        raise HarnessError(f"{sample} holds no LongMemEval records to repeat")
    with out.open("w", encoding="utf-8") as handle:
        handle.write("[")
        for n in range(haystacks):
            record = dict(records[n % len(records)])
            prefix = f"syn{n}_"
            record["question_id"] = prefix + record["question_id"]
            record["haystack_session_ids"] = [prefix + s for s in record["haystack_session_ids"]]
            record["answer_session_ids"] = [prefix + s for s in record["answer_session_ids"]]
            handle.write(("," if n else "") + json.dumps(record))
        handle.write("]")
    return out


def bench_cell(
    target: BenchTarget,
    backend_name: str,
    backend_factory: Callable[[], Backend],
    mode: Mode,
    granularity: Granularity,
    embedder_factory: Callable[[], Embedder],
) -> list[BenchRow]:
    """Run one cell in this process and return a row per scored level."""
    selection = Selection(target.dataset, target.path, SPECS[target.dataset].reader(target.path), None, None)
    kind = HaystackKind(selection, granularity)
    backend = backend_factory()
    try:
        outcome = run(kind, Engine(backend, embedder_factory() if mode.needs_vectors else None, (mode,)))
    finally:
        backend.close()
    if outcome.stopped is not None:
        raise outcome.stopped
    evaluation = kind.evaluation(outcome.results, [mode], outcome.wall_s)
    (summary,) = summarize(evaluation)
    return [
        BenchRow(
            label=target.label,
            backend=backend_name,
            mode=str(mode),
            granularity=str(granularity),
            level=str(level),
            questions=level_summary.overall.questions,
            errors=summary.errors,
            haystacks=len(evaluation.haystacks),
            turns=sum(h.documents for h in evaluation.haystacks),
            wall_s=evaluation.wall_s,
            ingest_s=sum(h.ingest_s for h in evaluation.haystacks),
            embed_s=sum(h.embed_s for h in evaluation.haystacks),
            p50_ms=summary.latency.p50_ms,
            p95_ms=summary.latency.p95_ms,
            peak_rss_mb=evaluation.peak_rss_mb,
            metrics={m: level_summary.overall.metrics[m] for m in ROW_METRICS},
        )
        for level, level_summary in summary.levels.items()
    ]


@contextmanager
def _runner(isolate: bool) -> Iterator[Callable[..., list[BenchRow]]]:
    """Run cells in a fresh spawned process each (isolate) or in this one."""
    if not isolate:
        yield bench_cell
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context, max_tasks_per_child=1) as pool:
        yield lambda *args: pool.submit(bench_cell, *args).result()


def run_bench(
    targets: Sequence[BenchTarget],
    backend_factories: Mapping[str, Callable[[], Backend]],
    modes: Sequence[Mode],
    granularities: Sequence[Granularity],
    embedder_factory: Callable[[], Embedder],
    isolate: bool = True,
) -> list[BenchRow]:
    """Every cell, in order; factories must pickle (top-level callables) when `isolate` is on."""
    if isolate:
        pickle.dumps((dict(backend_factories), embedder_factory))
    rows: list[BenchRow] = []
    with _runner(isolate) as run_cell:
        for target in targets:
            for name, factory in backend_factories.items():
                for granularity in granularities:
                    for mode in modes:
                        rows.extend(run_cell(target, name, factory, mode, granularity, embedder_factory))
    return rows


def bench_datasets(
    *,
    backend_factories: Mapping[str, Callable[[], Backend]],
    modes: Sequence[str] = ("bm25", "vector", "hybrid"),
    granularities: Sequence[str] = ("session", "turn"),
    targets: Sequence[BenchTarget] | None = None,
    synthetic_haystacks: int = 0,
    out_dir: Path,
    embedder_factory: Callable[[], Embedder],
    isolate: bool = True,
) -> tuple[list[BenchRow], list[Path]]:
    """The benchmark: run every cell, write `bench-datasets-<time>.{json,md}`; the rows and the files."""
    parsed_modes = [Mode(m) for m in modes]
    parsed_granularities = [Granularity(g) for g in granularities]
    chosen = list(targets) if targets is not None else default_targets()
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as scratch:
        if synthetic_haystacks:
            sample = find_file((SAMPLE_FILE,))
            if sample is None:
                raise HarnessError(f"the synthetic LongMemEval-S file is built from {SAMPLE_FILE}, not found")
            path = build_synthetic_longmemeval(
                sample, Path(scratch) / "longmemeval_s.synthetic.json", synthetic_haystacks
            )
            chosen.append(BenchTarget(f"longmemeval-s synthetic x{synthetic_haystacks}", "longmemeval-s", path))
        if not chosen:
            raise HarnessError(
                "no dataset files to benchmark: see `harness run --help` (--dataset, --file) for where to put them"
            )
        rows = run_bench(chosen, backend_factories, parsed_modes, parsed_granularities, embedder_factory, isolate)
    report: dict[str, Any] = {
        "kind": "dataset-bench",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
    }
    report["rows"] = [asdict(r) for r in rows]
    paths = write_run_files(
        out_dir, "bench-datasets", {"json": json.dumps(report, indent=1) + "\n", "md": render_bench_markdown(report)}
    )
    return rows, paths


_COLUMNS = tuple(label(m) for m in ROW_METRICS)


def row_cells(row: BenchRow) -> list[str]:
    quality = ["—" if row.metrics[m] is None else f"{row.metrics[m]:.3f}" for m in ROW_METRICS]
    timing = [
        f"{row.ingest_s:.1f}",
        f"{row.p50_ms:.2f}",
        f"{row.p95_ms:.2f}",
        f"{row.peak_rss_mb:.0f}",
        f"{row.wall_s:.1f}",
    ]
    return [row.label, row.backend, row.mode, row.granularity, row.level, str(row.questions), *quality, *timing]


HEADER = (
    "file",
    "backend",
    "mode",
    "granularity",
    "level",
    "n",
    *_COLUMNS,
    "ingest s",
    "p50 ms",
    "p95 ms",
    "peak MB",
    "wall s",
)


def render_bench_markdown(report: Mapping[str, Any]) -> str:
    """The benchmark as Markdown; its file labels (a user's file names) and the machine's names are
    escaped, as every Markdown report escapes what it did not write (`reports/escape.py`)."""
    rows = [BenchRow(**r) for r in report["rows"]]
    info = report["machine"]
    lines = [
        "# Dataset benchmark",
        "",
        md(
            f"{report['at']}; {info['platform']}, {info['cpus']} CPUs, {info['memory_gb']} GB, Python {info['python']}."
        ),
        "Quality: " + "; ".join(f"{label(m)}: {definition_of(m)}" for m in ROW_METRICS) + ".",
        "Latency: search only, per question. Peak: the cell's process peak resident memory. Wall: the whole cell"
        " (parse, embed lookup, ingest, query, score).",
        "",
        *tables.table(HEADER, [row_cells(row) for row in rows]),
    ]
    return "\n".join(lines) + "\n"
