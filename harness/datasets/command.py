"""What the CLI's dataset commands call: resolve the file, sample, run, report, and judge the run.

Nothing is downloaded: a missing file is a `HarnessError` saying where to get it and where to put it.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.table import Table

from harness.backends.base import Backend
from harness.datasets.evaluate import Evaluation, evaluate, skip_reason
from harness.datasets.retrieval import embedding_texts
from harness.datasets.sampling import SampleMethod, select
from harness.datasets.scoring import HEADLINE, label
from harness.datasets.summary import summarize
from harness.embeddings import Embedder, text_key
from harness.errors import HarnessError, Interrupted
from harness.models.haystack import DatasetReader, Granularity
from harness.pipeline.settings import Mode
from harness.reports.dataset_report import RunContext, build_report, write_report
from harness.resources import shared_datasets_dir
from harness.shards import Shard
from harness.suites.locomo import LoCoMoFile
from harness.suites.longmemeval import LongMemEvalFile

_Choice = TypeVar("_Choice", bound=StrEnum)

DATA_DIR_ENV = "HARNESS_DATA_DIR"

_LONGMEMEVAL_SOURCE = "the LongMemEval release (Hugging Face dataset xiaowu0162/longmemeval-cleaned)"


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """A dataset the harness reads: its file names, where users get it, and its reader."""

    title: str
    files: tuple[str, ...]
    source: str
    reader: Callable[[Path], DatasetReader]


SPECS: dict[str, DatasetSpec] = {
    "longmemeval-s": DatasetSpec(
        "LongMemEval-S", ("longmemeval_s_cleaned.json", "longmemeval_s.json"), _LONGMEMEVAL_SOURCE, LongMemEvalFile
    ),
    "longmemeval-m": DatasetSpec(
        "LongMemEval-M", ("longmemeval_m_cleaned.json", "longmemeval_m.json"), _LONGMEMEVAL_SOURCE, LongMemEvalFile
    ),
    "longmemeval-oracle": DatasetSpec(
        "LongMemEval oracle", ("longmemeval_oracle.json",), _LONGMEMEVAL_SOURCE, LongMemEvalFile
    ),
    "locomo": DatasetSpec(
        "LoCoMo", ("locomo10.json",), "the LoCoMo repository (github.com/snap-research/locomo, data/)", LoCoMoFile
    ),
}
DATASETS = frozenset(SPECS)


def data_dirs() -> list[Path]:
    """Folders searched for dataset files: `$HARNESS_DATA_DIR`, then `../shared/datasets`."""
    dirs = [Path(d) for d in [os.environ.get(DATA_DIR_ENV)] if d]
    return [*dirs, shared_datasets_dir()]


def find_file(names: Sequence[str]) -> Path | None:
    return next((d / n for d in data_dirs() for n in names if (d / n).is_file()), None)


def resolve_file(dataset: str, file: Path | None) -> Path:
    """The file to read: `--file` if given, else the first known file name in the data folders."""
    spec = _spec(dataset)
    if file is not None:
        if not file.exists():
            raise HarnessError(f"{spec.title} file {file} does not exist (check --file)")
        if not file.is_file():  # a FIFO would block, a device never ends
            raise HarnessError(f"{spec.title} file {file} is not a regular file (check --file)")
        return file
    if (found := find_file(spec.files)) is not None:
        return found
    looked = ", ".join(str(d) for d in data_dirs())
    raise HarnessError(
        f"{spec.title} data not found: looked for {' or '.join(spec.files)} in {looked}. Nothing is downloaded "
        f"at run time: get {spec.files[0]} from {spec.source}, then pass --file PATH or put it in "
        f"${DATA_DIR_ENV} or {shared_datasets_dir()}"
    )


def _spec(dataset: str) -> DatasetSpec:
    if dataset not in SPECS:
        raise HarnessError(f"unknown dataset {dataset!r}: choose one of {', '.join(sorted(SPECS))}")
    return SPECS[dataset]


def _choice(kind: type[_Choice], value: str, what: str) -> _Choice:
    try:
        return kind(value)
    except ValueError:
        raise HarnessError(f"unknown {what} {value!r}: choose one of {', '.join(kind)}") from None


@dataclass(frozen=True, slots=True)
class RunSettings:
    """Validated arguments of one dataset run."""

    dataset: str
    path: Path
    modes: tuple[Mode, ...]
    granularity: Granularity
    limit: int | None
    sample: SampleMethod
    seed: int
    error_threshold: float


def settings(
    *,
    dataset: str,
    file: Path | None,
    modes: Sequence[str],
    granularity: str,
    limit: int | None,
    sample: str,
    seed: int,
    error_threshold: float,
) -> RunSettings:
    """Check every argument before any work, so mistakes cost nothing."""
    _spec(dataset)
    parsed_modes = tuple(dict.fromkeys(_choice(Mode, m, "mode") for m in modes))
    if not parsed_modes:
        raise HarnessError("no retrieval mode given: choose from bm25, vector, hybrid")
    if limit is not None and limit < 1:
        raise HarnessError(f"--limit must be at least 1, got {limit}")
    if not 0 <= error_threshold <= 1:
        raise HarnessError(f"--error-threshold is a fraction between 0 and 1, got {error_threshold}")
    return RunSettings(
        dataset,
        resolve_file(dataset, file),
        parsed_modes,
        _choice(Granularity, granularity, "granularity"),
        limit,
        _choice(SampleMethod, sample, "sample method"),
        seed,
        error_threshold,
    )


def run_dataset(
    *,
    dataset: str,
    file: Path | None,
    backend: Backend,
    modes: Sequence[str],
    granularity: str,
    limit: int | None,
    sample: str,
    seed: int,
    error_threshold: float,
    dry_run: bool,
    out_dir: Path,
    embedder_factory: Callable[[], Embedder],
    console: Console | None = None,
    trec: bool = False,
    shard: Shard | None = None,
) -> int:
    """Run one dataset and write its reports (`trec`: and TREC run and qrels files); the exit code is
    `run_exit_code`'s. With `shard`, only the selected questions whose id hashes to that shard are
    asked (`harness.shards`).

    An interrupted run, or one stopped by an error, writes what finished as an incomplete report
    (never `-latest`) and re-raises.
    """
    console = console or Console()
    run_settings = settings(
        dataset=dataset,
        file=file,
        modes=modes,
        granularity=granularity,
        limit=limit,
        sample=sample,
        seed=seed,
        error_threshold=error_threshold,
    )
    started_at = datetime.now(UTC)
    reader = SPECS[dataset].reader(run_settings.path)
    scan_needed = run_settings.limit is None or run_settings.sample is not SampleMethod.HEAD or shard is not None
    refs = reader.scan() if scan_needed else None
    selected = select(refs, run_settings.limit, run_settings.sample, run_settings.seed)
    if shard is not None and refs is not None:
        chosen = [r for r in refs if selected is None or r.position in selected]
        selected = frozenset(r.position for r in shard.keep(chosen))
    total = len(refs) if refs is not None else None
    expected = len(selected) if selected is not None else total
    needs_vectors = any(m.needs_vectors for m in run_settings.modes)
    embedder = embedder_factory() if needs_vectors else None
    if dry_run:
        _dry_run(console, run_settings, reader, selected, total, embedder)
        return 0
    backend_info = backend.info()  # asked before the run: the server may be gone after it
    run = Evaluation(run_settings.granularity, run_settings.modes)
    stopped: BaseException | None = None
    try:
        evaluate(
            reader,
            selected,
            backend=backend,
            modes=run_settings.modes,
            granularity=run_settings.granularity,
            embedder=embedder,
            total=expected,
            into=run,
        )
    except (Interrupted, HarnessError) as exc:
        stopped = exc
    context = RunContext(
        dataset=dataset,
        file=run_settings.path,
        backend=backend_info,
        embedding_model=embedder.model if embedder else None,
        embedding_device=str(embedder.device) if embedder else None,
        shard=shard,
        limit=run_settings.limit,
        sample=str(run_settings.sample),
        seed=run_settings.seed,
        total_questions=total if total is not None else len({r.id for r in run.results}),
        selected_questions=len({r.id for r in run.results}),
        error_threshold=run_settings.error_threshold,
        started_at=started_at,
    )
    report = build_report(run, context)
    if stopped is not None:
        done = f"{len({r.id for r in run.results})} of {expected if expected is not None else '?'} questions"
        report |= {"incomplete": True, "incomplete_reason": f"{_stop_reason(stopped)} after {done}"}
    paths = write_report(report, out_dir)
    if trec and stopped is None:
        from harness.reports.trec import dataset_trec, write_trec

        paths += write_trec(out_dir, f"run-dataset-{dataset}-{run.granularity}", dataset_trec(run))
    _print_summary(console, run_settings, run, paths)
    if stopped is not None:
        if isinstance(stopped, Interrupted):
            stopped.detail = f"{dataset} run after {done}; finished part in {paths[0]}"
        else:
            stopped.args = (f"{stopped} ({dataset} run stopped after {done}; finished part in {paths[0]})",)
        raise stopped
    return run_exit_code(run, run_settings.error_threshold)


def _stop_reason(exc: BaseException) -> str:
    return f"interrupted by {exc.signal_name}" if isinstance(exc, Interrupted) else f"stopped: {exc}"


def run_exit_code(run: Evaluation, error_threshold: float) -> int:
    """3 when the backend was lost mid-run, 1 when more than `error_threshold` of questions errored, else 0."""
    if any(r.backend_lost for r in run.errors):
        return 3
    return 1 if run.error_fraction() > error_threshold else 0


@dataclass(frozen=True, slots=True)
class EmbedCount:
    """What `embed_dataset` found: distinct texts the selection needs, and how many it computed."""

    texts: int
    computed: int


def embed_dataset(
    *,
    dataset: str,
    file: Path | None,
    embedder: Embedder,
    limit: int | None = None,
    sample: str = "head",
    seed: int = 0,
    batch: int = 8192,
    on_plan: Callable[[int, int], None] | None = None,
) -> EmbedCount:
    """Cache the vectors a vector or hybrid run of this selection needs.

    Two streamed passes: the first counts distinct texts and the ones not cached (reported to
    `on_plan(texts, missing)`, so a progress bar has a total); the second embeds the missing ones
    `batch` at a time. The largest files never hold all their texts at once, and the embedder
    stores every finished shard, so an interrupted run resumes where it stopped.
    """
    path = resolve_file(dataset, file)
    method = _choice(SampleMethod, sample, "sample method")
    if limit is not None and limit < 1:
        raise HarnessError(f"--limit must be at least 1, got {limit}")
    reader = SPECS[dataset].reader(path)
    selected = select(None if limit is not None and method is SampleMethod.HEAD else reader.scan(), limit, method, seed)
    seen: set[str] = set()
    missing = 0
    for texts in _haystack_texts(reader, selected):
        fresh = [t for t in dict.fromkeys(texts) if text_key(t) not in seen]
        seen.update(text_key(t) for t in fresh)
        missing += sum(v is None for v in embedder.cache.lookup(fresh))
    if on_plan is not None:
        on_plan(len(seen), missing)
    pending: dict[str, None] = {}
    computed = 0
    for texts in _haystack_texts(reader, selected):
        pending.update((t, None) for t, v in zip(texts, embedder.cache.lookup(texts), strict=True) if v is None)
        if len(pending) >= batch:
            embedder.embed(list(pending))
            computed += len(pending)
            pending.clear()
    if pending:
        embedder.embed(list(pending))
    return EmbedCount(len(seen), computed + len(pending))


def _haystack_texts(reader: DatasetReader, selected: frozenset[int] | None) -> Iterator[list[str]]:
    """Per haystack, every text a vector run embeds: its turns and its questions."""
    for haystack in reader.read(selected):
        yield [*embedding_texts(haystack), *(q.text for q in haystack.questions)]


def _dry_run(
    console: Console,
    run_settings: RunSettings,
    reader: DatasetReader,
    selected: frozenset[int] | None,
    total: int | None,
    embedder: Embedder | None,
) -> None:
    """Read and check everything a run would use, index nothing, and say what the run would do."""
    haystacks = documents = 0
    categories: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    defects = notes = 0
    texts: set[str] = set()
    for haystack in reader.read(selected):
        haystacks += 1
        documents += len(haystack.documents)
        notes += len(haystack.notes)
        for question in haystack.questions:
            categories[question.category] += 1
            defects += len(question.defects)
            if (reason := skip_reason(question, run_settings.granularity)) is not None:
                skipped[reason] += 1
        if embedder is not None:
            texts.update(embedding_texts(haystack))
            texts.update(q.text for q in haystack.questions)
    table = Table(title=f"dry run: {run_settings.dataset} ({run_settings.path})", show_header=False)
    table.add_row("questions", f"{sum(categories.values())} of {total if total is not None else '?'}")
    for category, count in sorted(categories.items()):
        table.add_row(f"  {category}", str(count))
    table.add_row("haystacks", str(haystacks))
    table.add_row("turns", str(documents))
    for reason, count in skipped.items():
        table.add_row("skipped", f"{count}: {reason}")
    table.add_row("evidence defects", str(defects))
    table.add_row("load notes", str(notes))
    table.add_row("modes", ", ".join(run_settings.modes))
    if embedder is not None:
        missing = sum(v is None for v in embedder.cache.lookup(sorted(texts)))
        table.add_row("embeddings", f"{missing} of {len(texts)} texts not cached for {embedder.model}")
    console.print(table)


def _print_summary(console: Console, run_settings: RunSettings, run: Evaluation, paths: Sequence[Path]) -> None:
    table = Table(
        title=f"{run_settings.dataset}, {run_settings.granularity} granularity, {len(run.haystacks)} haystacks"
    )
    for column in ("mode", "level", "errors", "n", *(label(m) for m in HEADLINE), "p50 ms", "p95 ms"):
        table.add_column(column)
    for summary in summarize(run):
        for level, level_summary in summary.levels.items():
            cells = [level_summary.overall.metrics[m] for m in HEADLINE]
            table.add_row(
                str(summary.mode),
                str(level),
                str(summary.errors),
                str(level_summary.overall.questions),
                *("—" if v is None else f"{v:.3f}" for v in cells),
                f"{summary.latency.p50_ms:.2f}",
                f"{summary.latency.p95_ms:.2f}",
            )
    console.print(table)
    ingest = sum(h.ingest_s for h in run.haystacks)
    console.print(
        f"wall {run.wall_s:.1f} s, ingest {ingest:.1f} s, peak memory {run.peak_rss_mb:.0f} MB, "
        f"errors {run.error_fraction():.1%} (threshold {run_settings.error_threshold:.1%})"
    )
    if errors := run.errors:
        lost = " (the backend was lost)" if any(r.backend_lost for r in errors) else ""
        Console(stderr=True).print(
            f"harness: {run_settings.dataset}: {len(errors)} of {len(run.asked)} questions errored{lost} "
            f"({len({r.reason for r in errors})} distinct); first: {errors[0].reason}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    for path in paths:
        console.print(f"report: {path}")
