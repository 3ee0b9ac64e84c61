"""The run loop: for each haystack, ingest once, ask each question in each mode, time and score it.

A question that fails is recorded with its error and the run goes on; the caller decides from the
error fraction whether the run failed. Latency is the backend search plus fusion and session
aggregation; query vectors are looked up (or computed) per haystack beforehand and timed apart.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness.backends.base import Backend, Hit
from harness.backends.failures import connection_lost
from harness.datasets.retrieval import HaystackIndex, embedding_texts, query_terms
from harness.datasets.scoring import score
from harness.embeddings import Embedder
from harness.models.haystack import DatasetReader, Granularity, Haystack, Question
from harness.pipeline.settings import Mode

REPORTED_HITS = 10
"""Retrieved ids kept per question and level in the report (metrics use the full ranking)."""


class QuestionStatus(StrEnum):
    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class LevelResult:
    """One question's ranking and metrics at one level (session or turn)."""

    level: Granularity
    gold: tuple[str, ...]
    retrieved: tuple[tuple[str, float], ...]
    metrics: dict[str, float]
    ranking: tuple[tuple[str, float], ...] = ()
    """The whole scored ranking (TREC export); `retrieved` is its head as the report keeps it."""


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """One question in one mode; skipped questions (no gold) have mode None and no levels."""

    id: str
    haystack: str
    category: str
    text: str
    mode: Mode | None
    status: QuestionStatus
    reason: str | None = None
    latency_s: float | None = None
    levels: tuple[LevelResult, ...] = ()
    defects: tuple[str, ...] = ()
    abstention: bool = False
    backend_lost: bool = False


@dataclass(frozen=True, slots=True)
class HaystackStats:
    id: str
    documents: int
    questions: int
    embed_s: float
    ingest_s: float


@dataclass
class Evaluation:
    """Everything a report needs from one run."""

    granularity: Granularity
    modes: tuple[Mode, ...]
    results: list[QuestionResult] = field(default_factory=list)
    haystacks: list[HaystackStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0

    @property
    def asked(self) -> list[QuestionResult]:
        return [r for r in self.results if r.status is not QuestionStatus.SKIPPED]

    def error_fraction(self) -> float:
        asked = self.asked
        return sum(r.status is QuestionStatus.ERROR for r in asked) / len(asked) if asked else 0.0

    @property
    def errors(self) -> list[QuestionResult]:
        return [r for r in self.results if r.status is QuestionStatus.ERROR]


def skip_reason(question: Question, granularity: Granularity) -> str | None:
    """Why a question is not scored: abstention (as LongMemEval's official scoring) or no usable gold."""
    if question.abstention:
        return "abstention question: no evidence exists, left out of retrieval metrics"
    if not question.gold(granularity):
        return f"no usable {granularity} evidence"
    return None


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def evaluate(
    reader: DatasetReader,
    selected: frozenset[int] | None,
    *,
    backend: Backend,
    modes: Sequence[Mode],
    granularity: Granularity,
    embedder: Embedder | None,
    total: int | None,
    console: Console | None = None,
    into: Evaluation | None = None,
) -> Evaluation:
    """Run every selected question of `reader` in every mode against `backend`.

    Results accumulate in `into` (default: a new Evaluation), so an interrupted run's caller keeps them.
    """
    needs_vectors = any(m.needs_vectors for m in modes)
    if needs_vectors and embedder is None:
        raise ValueError("vector and hybrid modes need an embedder")
    run = into if into is not None else Evaluation(granularity, tuple(modes))
    started = time.perf_counter()
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=True,
    )
    try:
        with progress:
            task = progress.add_task("questions", total=total)
            for number, haystack in enumerate(reader.read(selected)):
                run.notes.extend(f"{haystack.id}: {note}" for note in haystack.notes)
                _haystack(run, backend, embedder if needs_vectors else None, number, haystack)
                progress.advance(task, len(haystack.questions))
    finally:
        run.wall_s = time.perf_counter() - started
        run.peak_rss_mb = peak_rss_mb()
    return run


def _haystack(run: Evaluation, backend: Backend, embedder: Embedder | None, number: int, haystack: Haystack) -> None:
    asked: list[Question] = []
    for question in haystack.questions:
        if (reason := skip_reason(question, run.granularity)) is not None:
            run.results.append(_skipped(haystack.id, question, reason))
        else:
            asked.append(question)
    if not asked:
        return
    embed_started = time.perf_counter()
    vectors: np.ndarray | None = None
    query_vectors: list[np.ndarray | None] = [None] * len(asked)
    if embedder is not None:
        vectors = embedder.embed(embedding_texts(haystack))
        query_vectors = list(embedder.embed([q.text for q in asked]))
    embed_s = time.perf_counter() - embed_started
    ingest_started = time.perf_counter()
    try:
        index = HaystackIndex(backend, f"dataset_{number}", haystack, run.granularity, run.modes, vectors)
    except Exception as exc:  # noqa: BLE001 - any backend failure is this haystack's error, recorded per question
        run.results.extend(_failed(haystack.id, q, mode, exc) for q in asked for mode in run.modes)
        return
    run.haystacks.append(
        HaystackStats(haystack.id, len(haystack.documents), len(asked), embed_s, time.perf_counter() - ingest_started)
    )
    try:
        for question, query_vector in zip(asked, query_vectors, strict=True):
            for mode in run.modes:
                run.results.append(_ask(index, haystack.id, question, mode, query_vector))
    finally:
        try:
            index.drop()
        except Exception:  # noqa: BLE001 - a lost backend is already in the questions' errors; the run goes on
            pass


def _ask(
    index: HaystackIndex,
    haystack: str,
    question: Question,
    mode: Mode,
    query_vector: np.ndarray | None,
) -> QuestionResult:
    try:
        started = time.perf_counter()
        rankings = index.search(mode, query_terms(question.text), query_vector)
        latency = time.perf_counter() - started
        levels = tuple(_level(level, ranking, question) for level, ranking in rankings.items())
    except Exception as exc:  # noqa: BLE001 - recorded per question; the error threshold judges the run
        return _failed(haystack, question, mode, exc)
    return QuestionResult(
        question.id,
        haystack,
        question.category,
        question.text,
        mode,
        QuestionStatus.OK,
        latency_s=latency,
        levels=levels,
        defects=question.defects,
    )


def _level(level: Granularity, hits: list[Hit], question: Question) -> LevelResult:
    gold = question.gold(level)
    return LevelResult(
        level,
        tuple(sorted(gold)),
        tuple((h.id, round(h.score, 6)) for h in hits[:REPORTED_HITS]),
        score([h.id for h in hits], gold),
        tuple((h.id, h.score) for h in hits),
    )


def _skipped(haystack: str, question: Question, reason: str) -> QuestionResult:
    return QuestionResult(
        question.id,
        haystack,
        question.category,
        question.text,
        None,
        QuestionStatus.SKIPPED,
        reason=reason,
        defects=question.defects,
        abstention=question.abstention,
    )


def _failed(haystack: str, question: Question, mode: Mode, exc: Exception) -> QuestionResult:
    return QuestionResult(
        question.id,
        haystack,
        question.category,
        question.text,
        mode,
        QuestionStatus.ERROR,
        _describe(exc),
        defects=question.defects,
        backend_lost=connection_lost(exc),
    )


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:500]
