"""Questions over a haystack (LongMemEval, LoCoMo): ingest each haystack once, ask each question
in each mode, time and score it against its gold evidence.

A question that fails is recorded with its error and the run goes on; the runner's verdict decides
from the error fraction whether the run failed. Latency is the backend search plus fusion and
session aggregation; query vectors are looked up (or computed) per haystack beforehand and timed apart.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from harness.backends.base import Hit
from harness.backends.failures import connection_lost
from harness.embeddings import Embedder
from harness.evaluation import teardown
from harness.evaluation.embedders import haystack_texts, selection_texts
from harness.evaluation.kind import Engine, Item, KindOptions, KindSpec, Step, option
from harness.evaluation.question_results import (
    REPORTED_HITS,
    Evaluation,
    HaystackStats,
    LevelResult,
    QuestionResult,
    QuestionStatus,
    peak_rss_mb,
)
from harness.messages import error_text
from harness.metrics.dataset_measures import score
from harness.models.haystack import Document, Granularity, Haystack, Question
from harness.pipeline.ahead import analysed_ahead
from harness.pipeline.haystack import (
    DEPTH,
    HaystackIndex,
    by_session,
    embedding_texts,
    fusion_for,
    query_terms,
    turn_text,
)
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.reports import dataset_report
from harness.reports.dataset_report import RunContext, merged_timing
from harness.reports.document import Report, RowText, RunInfo
from harness.reports.scores import dataset_scores
from harness.reports.trec import dataset_trec
from harness.suites.datasets import Selection, open_selection
from harness.suites.sampling import SampleMethod
from harness.systems.bound import BoundSystem
from harness.systems.protocol import MemorySystem, Query, Record


def skip_reason(question: Question, granularity: Granularity) -> str | None:
    """Why a question is not scored: abstention (as LongMemEval's official scoring) or no usable gold."""
    if question.abstention:
        return "abstention question: no evidence exists, left out of retrieval metrics"
    if not question.gold(granularity):
        return f"no usable {granularity} evidence"
    return None


@dataclass
class HaystackKind:
    """Questions over haystacks as a case kind: one step per question asked (in every mode).

    A haystack is ingested once into fresh namespaces, its questions asked, then dropped. The
    kind keeps what its report needs besides the results: skipped questions, per-haystack
    timings, load notes. One instance serves one run on one backend.
    """

    selection: Selection
    granularity: Granularity
    embedding_model: str | None = None
    embedding_device: str | None = None
    error_threshold: float = 0.0
    name: str = "haystack"
    unit: str = "questions"
    skipped: list[QuestionResult] = field(default_factory=list)
    haystacks: list[HaystackStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    shard_timings: list[Mapping[str, Any]] = field(default_factory=list)
    """The timings of the shard reports a merge restored (their work added up in the report)."""
    groups: dict[str, frozenset[int]] | None = None
    """Per haystack, its questions' positions in the file (what `only` selects; read on first use)."""
    asserted: frozenset[Mode] = frozenset({Mode.BM25})
    """bm25 is the system under test: the built-in questions are written so that their words find
    their evidence; vector and hybrid are measured (a failure there fails only against a baseline)."""
    through_systems: ClassVar[bool] = True
    """It runs on any system under test (`_through`)."""

    @property
    def baseline_suite(self) -> str:
        return f"{self.selection.dataset}-{self.granularity}"

    def total(self, modes: Sequence[Mode]) -> int | None:  # noqa: ARG002 - one step per question, whatever the modes
        return self.selection.expected

    def texts(self) -> Iterator[str]:
        """Per haystack, every text a vector run embeds: its turns and its questions."""
        return selection_texts(self.selection)

    def execute(self, engine: Engine) -> Iterator[Step[QuestionResult]]:
        if engine.system is not None:
            yield from self._through(engine.system, engine)
            return
        needs_vectors = any(m.needs_vectors for m in engine.modes)
        if needs_vectors and engine.embedder is None:
            raise ValueError("vector and hybrid modes need an embedder")
        if needs_vectors and isinstance(engine.embedder, Embedder):
            self.embedding_device = str(engine.embedder.device)
        namespace = f"h{uuid.uuid4().hex[:12]}"
        read = self.selection.reader.read(self.selection.selected)
        for number, (haystack, analysed) in enumerate(analysed_ahead(read)):
            self.notes.extend(f"{haystack.id}: {note}" for note in haystack.notes)
            embedder = engine.embedder if needs_vectors else None
            yield from self._haystack(engine, embedder, f"{namespace}_{number}", haystack, analysed)

    def _haystack(
        self, engine: Engine, embedder: TextEmbedder | None, namespace: str, haystack: Haystack, analysed: list[str]
    ) -> Iterator[Step[QuestionResult]]:
        asked: list[Question] = []
        for question in haystack.questions:
            if (reason := skip_reason(question, self.granularity)) is not None:
                self.skipped.append(_skipped(haystack.id, question, reason))
                yield Step(question.id, [])  # not asked, but a selected question: progress counts it
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
            index = HaystackIndex(
                engine.backend,
                namespace,
                haystack,
                self.granularity,
                engine.modes,
                vectors,
                fusion=fusion_for(self.embedding_model),
                analysed=analysed,
            )
        except Exception as exc:  # noqa: BLE001 - any backend failure is this haystack's error, recorded per question
            for q in asked:
                yield Step(q.id, [_failed(haystack.id, q, mode, exc) for mode in engine.modes])
            return
        self.haystacks.append(
            HaystackStats(
                haystack.id, len(haystack.documents), len(asked), embed_s, time.perf_counter() - ingest_started
            )
        )
        try:
            for question, query_vector in zip(asked, query_vectors, strict=True):
                yield Step(question.id, [_ask(index, haystack.id, question, m, query_vector) for m in engine.modes])
        finally:
            teardown.drop(index, f"haystack {haystack.id!r}")

    def _through(self, system: BoundSystem, engine: Engine) -> Iterator[Step[QuestionResult]]:
        """Each haystack's turns ingested into a namespace of the system, each question searched
        there (`DEPTH` results), scored against its gold as the reference system's rankings are;
        a session ranks by its best turn. Latency is the system's search, as it answers it."""
        namespace = f"h{uuid.uuid4().hex[:12]}"
        for number, haystack in enumerate(self.selection.reader.read(self.selection.selected)):
            self.notes.extend(f"{haystack.id}: {note}" for note in haystack.notes)
            asked: list[Question] = []
            for question in haystack.questions:
                if (reason := skip_reason(question, self.granularity)) is not None:
                    self.skipped.append(_skipped(haystack.id, question, reason))
                    yield Step(question.id, [])
                else:
                    asked.append(question)
            if not asked:
                continue
            ingest_started = time.perf_counter()
            try:
                opened = system.open(f"{namespace}_{number}")
            except Exception as exc:  # noqa: BLE001 - this haystack's error, recorded per question
                for q in asked:
                    yield Step(q.id, [_failed(haystack.id, q, mode, exc) for mode in engine.modes])
                continue
            try:
                try:
                    opened.add([_turn_record(d) for d in haystack.documents])
                except Exception as exc:  # noqa: BLE001 - this haystack's error, recorded per question
                    for q in asked:
                        yield Step(q.id, [_failed(haystack.id, q, mode, exc) for mode in engine.modes])
                    continue
                self.haystacks.append(
                    HaystackStats(
                        haystack.id, len(haystack.documents), len(asked), 0.0, time.perf_counter() - ingest_started
                    )
                )
                session_of = {d.id: d.session_id for d in haystack.documents}
                for question in asked:
                    yield Step(
                        question.id,
                        [self._ask_system(opened, session_of, haystack.id, question, m) for m in engine.modes],
                    )
            finally:
                teardown.close(opened)

    def _ask_system(
        self, opened: MemorySystem, session_of: Mapping[str, str], haystack: str, question: Question, mode: Mode
    ) -> QuestionResult:
        try:
            started = time.perf_counter()
            found = opened.search(Query(question.text, HAYSTACK_USER, limit=DEPTH), mode)
            latency = time.perf_counter() - started
            unknown = [f.id for f in found if f.id not in session_of]
            if unknown:
                raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
            scored = all(f.score is not None for f in found)
            turns = [
                Hit(f.id, f.score if scored and f.score is not None else 1.0 / rank) for rank, f in enumerate(found, 1)
            ]
            rankings = {Granularity.SESSION: by_session(turns, session_of, DEPTH)}
            if self.granularity is Granularity.TURN:
                rankings = {Granularity.TURN: turns, **rankings}
            levels = tuple(_level(level, ranking, question) for level, ranking in rankings.items())
        except Exception as exc:  # noqa: BLE001 - recorded per question; the error threshold judges the run
            return _failed(haystack, question, mode, exc)
        return _result(haystack, question, mode, QuestionStatus.OK, latency_s=latency, levels=levels)

    def evaluation(self, results: Sequence[QuestionResult], modes: Sequence[Mode], wall_s: float) -> Evaluation:
        """The run as the dataset report reads it: asked and skipped questions, timings, notes."""
        return Evaluation(
            self.granularity,
            tuple(modes),
            [*results, *self.skipped],
            list(self.haystacks),
            list(self.notes),
            wall_s,
            peak_rss_mb(),
        )

    def prepare(self) -> None:
        """Nothing: the runner's embedder is all it needs."""

    def inputs(self) -> list[Path]:
        return [self.selection.path]

    def item_ids(self) -> list[str]:
        return [q.id for h in self.selection.reader.read(self.selection.selected) for q in h.questions]

    def items(self) -> list[Item]:
        """Each scored question (a skipped one has no result to judge), grouped by its haystack:
        one ingest serves a haystack's questions."""
        return [
            Item(q.id, h.id)
            for h in self.selection.reader.read(self.selection.selected)
            for q in h.questions
            if skip_reason(q, self.granularity) is None
        ]

    def only(self, group: str) -> HaystackKind:
        """The questions of haystack `group` (by their positions in the file, read once for every group)."""
        if self.groups is None:
            positions = {r.id: r.position for r in self.selection.reader.scan()}
            self.groups = {
                h.id: frozenset(positions[q.id] for q in h.questions)
                for h in self.selection.reader.read(self.selection.selected)
            }
        return HaystackKind(
            replace(self.selection, selected=self.groups.get(group, frozenset())),
            self.granularity,
            self.embedding_model,
            self.embedding_device,
            self.error_threshold,
        )

    def failures(self, result: QuestionResult) -> list[str]:
        """Its gold documents must be its top ones: each gold document ranked below them is a reason."""
        reasons = []
        for level in result.levels:
            if level.level is not self.granularity:
                continue
            top = [doc for doc, _ in level.retrieved[: len(level.gold)]]
            if missed := [doc for doc in level.gold if doc not in top]:
                reasons.append(
                    f"{result.id}: gold {level.level} {', '.join(missed)} not in the top {len(level.gold)} "
                    f"(ranked: {', '.join(doc for doc, _ in level.retrieved[:5]) or 'nothing'})"
                )
        return reasons

    def restore(self, bodies: Sequence[Mapping[str, Any]]) -> None:
        """The shard reports' load notes (each once, in haystack order), embedding device and timings."""
        order = {item: position for position, item in enumerate(self.item_ids())}
        first: dict[str, int] = {}
        for body in bodies:
            for question in body["questions"]:
                haystack = question["haystack"]
                first[haystack] = min(first.get(haystack, len(order)), order.get(question["id"], len(order)))
        notes = dict.fromkeys(note for body in bodies for note in body["notes"])
        self.notes = sorted(notes, key=lambda note: first.get(note.partition(": ")[0], len(order)))
        devices = {str(body.get("embedding_device")) for body in bodies}
        self.embedding_device = None if devices == {"None"} else ", ".join(sorted(devices))
        self.error_threshold = bodies[0]["error_threshold"]
        self.shard_timings = [body["timing"] for body in bodies]

    def report(self, results: Sequence[QuestionResult], run: RunInfo) -> Report:
        """A dataset run's report on one backend: its files, scorecard and TREC runs."""
        evaluation = self.evaluation(results, run.modes, run.wall_s)
        selection = self.selection
        asked = len({r.id for r in evaluation.results})
        context = RunContext(
            dataset=selection.dataset,
            file=selection.path,
            embedding_model=self.embedding_model,
            embedding_device=self.embedding_device,
            limit=selection.limit,
            sample=selection.sample,
            seed=selection.seed,
            total_questions=selection.total if selection.total is not None else asked,
            selected_questions=asked,
            error_threshold=self.error_threshold,
        )
        data = dataset_report.build_report(evaluation, context)
        if self.shard_timings:
            data["timing"] = merged_timing(self.shard_timings)
        view = run.envelope() | data
        return Report(
            stem=dataset_report.report_stem(data),
            data=data,
            markdown=dataset_report.render_markdown(view),
            scorecard=dataset_report.scorecard(view),
            trec=dataset_trec(evaluation) if run.incomplete is None else {},
            scores=dataset_scores(evaluation.results),
            settings={
                "file": selection.path.name,
                "limit": selection.limit,
                "sample": selection.sample,
                "seed": selection.seed,
                "embedding_model": self.embedding_model,
            },
        )


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
    return _result(haystack, question, mode, QuestionStatus.OK, latency_s=latency, levels=levels)


HAYSTACK_USER = "haystack"
"""The one user a haystack's turns are stored and searched under, on a system under test."""


def _turn_record(doc: Document) -> Record:
    """A turn as a system stores it: the text the reference system indexes, its session and date."""
    attributes = {"session_id": doc.session_id} | ({"date": doc.date} if doc.date else {})
    return Record(doc.id, turn_text(doc), HAYSTACK_USER, attributes=attributes)


def _level(level: Granularity, hits: list[Hit], question: Question) -> LevelResult:
    gold = question.gold(level)
    return LevelResult(
        level,
        tuple(sorted(gold)),
        tuple((h.id, round(h.score, 6)) for h in hits[:REPORTED_HITS]),
        score([h.id for h in hits], gold),
        tuple((h.id, h.score) for h in hits),
    )


def _result(
    haystack: str, question: Question, mode: Mode | None, status: QuestionStatus, **rest: Any
) -> QuestionResult:
    return QuestionResult(
        question.id, haystack, question.category, question.text, mode, status, defects=question.defects, **rest
    )


def _skipped(haystack: str, question: Question, reason: str) -> QuestionResult:
    return _result(haystack, question, None, QuestionStatus.SKIPPED, reason=reason, abstention=question.abstention)


def _failed(haystack: str, question: Question, mode: Mode, exc: Exception) -> QuestionResult:
    error = error_text(exc)[:500]
    return _result(haystack, question, mode, QuestionStatus.ERROR, reason=error, backend_lost=connection_lost(exc))


def describe(
    selection: Selection, granularity: Granularity, modes: Sequence[Mode], embedder: Embedder | None
) -> list[tuple[str, str]]:
    """What a run of the selection would do, read and checked without indexing anything (`--dry-run`)."""
    haystacks = documents = defects = notes = 0
    categories: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    texts: set[str] = set()
    for haystack in selection.reader.read(selection.selected):
        haystacks += 1
        documents += len(haystack.documents)
        notes += len(haystack.notes)
        for question in haystack.questions:
            categories[question.category] += 1
            defects += len(question.defects)
            if (reason := skip_reason(question, granularity)) is not None:
                skipped[reason] += 1
        if embedder is not None:
            texts.update(haystack_texts(haystack))
    total = selection.total if selection.total is not None else "?"
    rows = [("questions", f"{sum(categories.values())} of {total}")]
    rows += [(f"  {category}", str(count)) for category, count in sorted(categories.items())]
    rows += [("haystacks", str(haystacks)), ("turns", str(documents))]
    rows += [("skipped", f"{count}: {reason}") for reason, count in skipped.items()]
    rows += [("evidence defects", str(defects)), ("load notes", str(notes)), ("modes", ", ".join(modes))]
    if embedder is not None:
        missing = sum(v is None for v in embedder.cache.lookup(sorted(texts)))
        rows.append(("embeddings", f"{missing} of {len(texts)} texts not cached for {embedder.model}"))
    return rows


@dataclass(frozen=True)
class HaystackOptions:
    dataset: str | None = field(
        default=None,
        metadata=option(
            "A public dataset instead of suites: longmemeval-s, longmemeval-m, longmemeval-oracle, locomo "
            "(or builtin: a small one in cases/haystack)."
        ),
    )
    file: Path | None = field(
        default=None,
        metadata=option("The dataset file (default: looked up in HARNESS_DATA_DIR, ../shared/datasets)."),
    )
    granularity: Granularity = field(default=Granularity.SESSION, metadata=option("Dataset documents."))
    sample: SampleMethod = field(
        default=SampleMethod.HEAD, metadata=option("With --limit: head, stride or stratified (by question type).")
    )
    seed: int = field(default=0, metadata=option("Seed for --sample stratified."))


PREFIX = "haystack"


def build(suites: Sequence[str], common: KindOptions, own: HaystackOptions) -> HaystackKind:
    """The questions of `--dataset NAME` or `--suite haystack:NAME` (the one suite argument), selected and sharded."""
    (suite,) = suites
    dataset = suite.removeprefix(f"{PREFIX}:")
    selection = open_selection(
        dataset, own.file, limit=common.limit, sample=own.sample, seed=own.seed, shard=common.shard
    )
    needs_vectors = any(m.needs_vectors for m in common.modes)
    return HaystackKind(
        selection,
        own.granularity,
        embedding_model=common.embedding_model if needs_vectors else None,
        error_threshold=common.error_threshold,
    )


def run_order(kind: HaystackKind, modes: Sequence[str]) -> Callable[[QuestionResult], tuple[int, ...]]:
    """As a run reports them: asked questions in file order, each in every mode, then the skipped ones."""
    items = {item: position for position, item in enumerate(kind.item_ids())}

    def key(result: QuestionResult) -> tuple[int, ...]:
        mode = modes.index(result.mode) if result.mode in modes else 0
        return (result.mode is None, items.get(result.id, len(items)), mode)

    return key


def dry_run(kind: HaystackKind, modes: Sequence[Mode], embedder: Embedder | None) -> list[tuple[str, str]]:
    """`--dry-run`: the selection read and checked, as `describe` says it."""
    return [("file", str(kind.selection.path)), *describe(kind.selection, kind.granularity, modes, embedder)]


def result_from_json(data: Mapping[str, Any]) -> QuestionResult:
    return QuestionResult.from_json(data)


SPEC = KindSpec(
    name="haystack",
    title="Public datasets",
    suite_help="haystack:builtin, haystack:DATASET (as --dataset DATASET)",
    build=build,
    result=result_from_json,
    order=run_order,
    restore=HaystackKind.restore,
    describe=dry_run,
    embed_ahead=False,
    results_key="questions",
    prefixes=(PREFIX,),
    builtin=f"{PREFIX}:builtin",
    options=HaystackOptions,
    honours=frozenset({"trec", "dry_run"}),
    selector="dataset",
    main=("recall_any@5", "mrr"),
    row=lambda r: RowText(r.id, r.category, r.text),
    rule="a gold item is not among the top N at the run's granularity (N: how many gold items it has)",
)
