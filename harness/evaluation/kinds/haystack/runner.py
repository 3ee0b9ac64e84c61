"""Questions over a haystack (LongMemEval, LoCoMo): the one runner. Each haystack is ingested
once through the kind's port (`port.py`: the reference pipeline or a system under test, chosen by
`adapter`), each question asked in each mode, timed and scored against its gold evidence.

A question that fails is recorded with its error and the run goes on; the runner's verdict decides
from the error fraction whether the run failed. Latency is the port's search, with whatever makes
its rankings (fusion, session aggregation); the reference pipeline's query vectors are computed per
haystack beforehand and timed apart, as embedding.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from harness.backends.base import Hit
from harness.backends.failures import connection_lost
from harness.evaluation.crew import Crew
from harness.evaluation.embedders import selection_texts
from harness.evaluation.judged_rules import Rule
from harness.evaluation.kind import Engine, Item, Step
from harness.evaluation.kinds.haystack import report as dataset_report
from harness.evaluation.kinds.haystack.dataset_rules import (
    NO_GOLD,
    cut,
    gold_level,
    popoto_gold,
    popoto_means,
    popoto_scores,
    rules_record,
)
from harness.evaluation.kinds.haystack.port import Arrived, HaystackPort, Rankings, Searchable
from harness.evaluation.kinds.haystack.reference import ReferenceHaystacks
from harness.evaluation.kinds.haystack.report import RunContext, dataset_trec, merged_timing
from harness.evaluation.kinds.haystack.results import (
    REPORTED_HITS,
    Evaluation,
    HaystackStats,
    LevelResult,
    QuestionResult,
    QuestionStatus,
    peak_rss_mb,
)
from harness.evaluation.kinds.haystack.system import SystemHaystacks
from harness.messages import error_text
from harness.metrics.dataset_measures import score
from harness.metrics.popoto import PopotoRules
from harness.models.haystack import Granularity, Question
from harness.pipeline.haystack import fusion_for
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RunInfo
from harness.reports.scores import dataset_scores
from harness.suites.datasets import Selection
from harness.systems.protocol import REFERENCE


def adapter(
    engine: Engine, granularity: Granularity, embedding_model: str | None, rules: PopotoRules | None = None
) -> HaystackPort:
    """The port the questions run through on `engine`: the reference pipeline for the reference
    system, else the system under test (storing and asking as `rules` say, where given)."""
    if not engine.system.reference:
        return SystemHaystacks(engine.system, granularity, rules)
    needs_vectors = any(m.needs_vectors for m in engine.modes)
    if needs_vectors and engine.embedder is None:
        raise ValueError("vector and hybrid modes need an embedder")
    embedder = engine.embedder if needs_vectors else None
    return ReferenceHaystacks(engine.backend, engine.modes, granularity, embedder, fusion_for(embedding_model))


def skip_reason(question: Question, granularity: Granularity, rules: PopotoRules | None = None) -> str | None:
    """Why a question is not scored: abstention (as LongMemEval's official scoring) or no usable
    gold; under Popoto's rules only a question without gold (Popoto scores it 0)."""
    if rules is not None:
        return None if popoto_gold(rules, question) else NO_GOLD
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
    rules: PopotoRules | None = None
    """Popoto's definitions (`dataset_rules.py`), or None for the harness's."""
    name: str = "haystack"
    unit: str = "questions"
    skipped: list[QuestionResult] = field(default_factory=list)
    haystacks: list[HaystackStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    shard_timings: list[Mapping[str, Any]] = field(default_factory=list)
    """The timings of the shard reports a merge restored (their work added up in the report)."""
    groups: dict[str, frozenset[int]] | None = None
    """Per haystack, its questions' positions in the file (what `only` selects; read on first use)."""
    _read: dict[str, int] = field(default_factory=dict)
    """Each haystack's place in the run's order: haystacks run at once finish in any order, and
    their timings and skipped questions are reported in this one."""
    asserted: frozenset[Mode] = frozenset({Mode.BM25})
    """bm25 is the system under test: the built-in questions are written so that their words find
    their evidence; vector and hybrid are measured (a failure there fails only against a baseline)."""
    through_systems: ClassVar[bool] = True
    """It runs on any system under test (`system.py`)."""

    @property
    def baseline_suite(self) -> str:
        """The dataset and the level it is scored at (under Popoto's rules, its gold unit)."""
        level = self.granularity if self.rules is None else gold_level(self.rules)
        return f"{self.selection.dataset}-{level}"

    def total(self, modes: Sequence[Mode]) -> int | None:  # noqa: ARG002 - one step per question, whatever the modes
        return self.selection.expected

    def texts(self) -> Iterator[str]:
        """Per haystack, every text a vector run embeds: its turns and its questions."""
        return selection_texts(self.selection)

    def execute(self, engine: Engine) -> Iterator[Step[QuestionResult]]:
        port = adapter(engine, self.granularity, self.embedding_model, self.rules)
        yield from self.through(port, engine.modes, engine.crew)

    def through(
        self, port: HaystackPort, modes: Sequence[Mode], crew: Crew | None = None
    ) -> Iterator[Step[QuestionResult]]:
        """Each haystack ingested into a fresh namespace of the port, each of its scored questions
        searched there in every mode and scored against its gold, then the namespace dropped; up
        to the crew's size of haystacks at once (read in order here, each run on its worker)."""
        if (device := port.embedding_device) is not None:
            self.embedding_device = device
        namespace = f"h{uuid.uuid4().hex[:12]}"
        read = self.selection.reader.read(self.selection.selected)

        def tasks() -> Iterator[Callable[[], Iterator[Step[QuestionResult]]]]:
            for number, arrived in enumerate(port.read(read)):
                haystack = arrived.haystack
                self._read[haystack.id] = number
                self.notes.extend(f"{haystack.id}: {note}" for note in haystack.notes)
                yield partial(self._haystack, modes, arrived, f"{namespace}_{number}")

        yield from (crew or Crew()).steps(tasks())

    def _haystack(self, modes: Sequence[Mode], arrived: Arrived, namespace: str) -> Iterator[Step[QuestionResult]]:
        haystack = arrived.haystack
        asked: list[Question] = []
        for question in haystack.questions:
            if (reason := skip_reason(question, self.granularity, self.rules)) is not None:
                self.skipped.append(_skipped(haystack.id, question, reason))
                yield Step(question.id, [])  # not asked, but a selected question: progress counts it
            else:
                asked.append(question)
        if not asked:
            return
        embed_started = time.perf_counter()
        prepared = arrived.prepare(asked)
        embed_s = time.perf_counter() - embed_started
        ingest_started = time.perf_counter()
        try:
            searchable = prepared.ingest(namespace)
        except Exception as exc:  # noqa: BLE001 - any failure to store is this haystack's error, recorded per question
            for q in asked:
                yield Step(q.id, [_failed(haystack.id, q, mode, exc) for mode in modes])
            return
        self.haystacks.append(
            HaystackStats(
                haystack.id, len(haystack.documents), len(asked), embed_s, time.perf_counter() - ingest_started
            )
        )
        asking = _Asking(searchable, haystack.id, {d.id: d.session_id for d in haystack.documents}, self.rules)
        try:
            for question in asked:
                yield Step(question.id, [asking.ask(question, mode) for mode in modes])
        finally:
            searchable.close()

    def evaluation(self, results: Sequence[QuestionResult], modes: Sequence[Mode], wall_s: float) -> Evaluation:
        """The run as the dataset report reads it: asked and skipped questions, timings, notes."""

        def place(haystack: str) -> int:
            return self._read.get(haystack, len(self._read))

        return Evaluation(
            self.granularity,
            tuple(modes),
            [*results, *sorted(self.skipped, key=lambda r: place(r.haystack))],
            sorted(self.haystacks, key=lambda h: place(h.id)),
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
            if skip_reason(q, self.granularity, self.rules) is None
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
            self.rules,
        )

    def failures(self, result: QuestionResult) -> list[str]:
        """Its gold documents must be its top ones: each gold document ranked below them is a reason."""
        reasons = []
        judged = self.granularity if self.rules is None else gold_level(self.rules)
        for level in result.levels:
            if level.level is not judged:
                continue
            top = [doc for doc, _ in level.retrieved[: len(level.gold)]]
            if missed := [doc for doc in level.gold if doc not in top]:
                ranked = ", ".join(doc for doc, _ in level.retrieved[:5]) or "nothing"
                detail = f"gold {', '.join(missed)} not in the top {len(level.gold)} (ranked first: {ranked})"
                reasons.append(Rule.RANKED_LOW.reason(f"{result.id}: {level.level}", detail))
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
        if self.rules is not None:
            data["dataset_rules"] = rules_record(self.rules, run.system.name == REFERENCE)
            data["popoto"] = popoto_means(self.rules, evaluation.results)
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
                **({} if self.rules is None else {"rules": self.rules.name}),
            },
        )


@dataclass(frozen=True)
class _Asking:
    """One ingested haystack's questions, scored by the harness's measures and, under Popoto's
    rules, on Popoto's first `depth` records and by its recall too."""

    searchable: Searchable
    haystack: str
    session_of: Mapping[str, str]
    rules: PopotoRules | None

    def ask(self, question: Question, mode: Mode) -> QuestionResult:
        try:
            started = time.perf_counter()
            rankings = self.searchable.search(question, mode)
            latency = time.perf_counter() - started
            levels = self._levels(question, rankings)
        except Exception as exc:  # noqa: BLE001 - recorded per question; the error threshold judges the run
            return _failed(self.haystack, question, mode, exc)
        return _result(self.haystack, question, mode, QuestionStatus.OK, latency_s=latency, levels=levels)

    def _levels(self, question: Question, rankings: Rankings) -> tuple[LevelResult, ...]:
        rules = self.rules
        if rules is None:
            return tuple(_level(level, ranking, question.gold(level)) for level, ranking in rankings.items())
        turns = rankings[Granularity.TURN]
        unit, gold = gold_level(rules), popoto_gold(rules, question)
        levels = []
        for level, ranking in cut(rules, turns, self.session_of).items():
            if level is unit:
                scored = _level(level, ranking, gold)
                popoto = popoto_scores(rules, turns, self.session_of, gold)
                levels.append(replace(scored, metrics=scored.metrics | popoto))
            elif golden := question.gold(level):
                levels.append(_level(level, ranking, golden))
        return tuple(levels)


def _level(level: Granularity, hits: list[Hit], gold: frozenset[str]) -> LevelResult:
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
