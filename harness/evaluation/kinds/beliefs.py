"""Belief retrieval cases: static snapshots and session turns over one corpus (built-in, Tenure, PMB).

Static cases share one loaded index (they never write). Each session case gets its own index,
replays the mutations of the session cases before it (the fixtures' sessions share state), then
plays its turns in order, retrieving in every mode; the suite's ruleset says whether a turn's
mutation comes before its retrieval (built-in) or after its checks (Tenure).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from harness.backends.base import Backend
from harness.evaluation import system_beliefs, teardown
from harness.evaluation.judge import judge
from harness.evaluation.kind import Engine, Item, KindOptions, KindSpec, Step, option
from harness.evaluation.results import CaseResult, asked, context_record
from harness.metrics import classify, drift_score
from harness.metrics.measures import SUITE_MEASURES
from harness.models import Budget, Expect, SessionCase, StaticCase, Suite, Turn
from harness.pipeline import Context, MemoryPipeline, Mode, PipelineSettings
from harness.pipeline.memory_layer import Request, TextEmbedder
from harness.pipeline.ruleset import CaseKind, MutationTiming, Ruleset, ruleset
from harness.pipeline.settings import CONTENT_FIELDS, SURFACE_FIELDS
from harness.reports import run_report
from harness.reports.document import Report, RowText, RunInfo
from harness.reports.memory_texts import memory_texts
from harness.reports.metadata import run_metadata, suite_record
from harness.reports.scores import suite_scores
from harness.reports.summary import ModeSummary, summarize
from harness.reports.trec import suite_trec
from harness.shards import Shard
from harness.suites import load_suite
from harness.suites.texts import suite_texts


class SuiteRunner:
    def __init__(
        self,
        backend: Backend,
        suite: Suite,
        *,
        settings: PipelineSettings | None = None,
        embedder: TextEmbedder | None = None,
        rules: Ruleset | None = None,
    ):
        """`rules`: judge by these instead of the suite's own ruleset (to compare rulesets)."""
        self.backend = backend
        self.suite = suite
        self.settings = settings or PipelineSettings()
        self.rules = rules or ruleset(suite.ruleset)
        self.embedder = embedder
        self._static: MemoryPipeline | None = None
        self._open: list[MemoryPipeline] = []

    def _pipeline(self) -> MemoryPipeline:
        namespace = f"h{uuid.uuid4().hex[:12]}"
        pipeline = MemoryPipeline.open(self.backend, namespace, self.settings, self.embedder, self.rules)
        self._open.append(pipeline)
        pipeline.load(self.suite.corpus.memories)
        return pipeline

    def static_pipeline(self) -> MemoryPipeline:
        if self._static is None:
            self._static = self._pipeline()
        return self._static

    def close(self) -> None:
        """Drop every namespace this runner created (each tried); the first failure is raised after."""
        failed: teardown.TeardownFailed | None = None
        for pipeline in self._open:
            try:
                teardown.drop(pipeline.index, f"suite {self.suite.name!r} on {self.backend.name}")
            except teardown.TeardownFailed as exc:
                failed = failed or exc
        self._open.clear()
        self._static = None
        if failed is not None:
            raise failed

    # -- static ---------------------------------------------------------------------------------

    def run_static(self, case: StaticCase, mode: Mode) -> CaseResult:
        result = self._result(
            "static",
            case.id,
            case.user,
            mode,
            case.query,
            case.scopes,
            case.budget,
            case.expect,
            category=case.category,
        )
        try:
            pipeline = self.static_pipeline()
            self._retrieve_and_judge(pipeline, result, case.expect, mode, CaseKind.STATIC)
        except Exception as exc:  # noqa: BLE001 - recorded as the case's error, run continues
            result.fail_with(exc)
        return result

    # -- sessions -------------------------------------------------------------------------------

    def run_session(self, position: int, modes: Sequence[Mode]) -> list[CaseResult]:
        """All turns of session case `position`, in every mode; earlier sessions' writes replayed."""
        case = self.suite.session_cases[position]
        results: list[CaseResult] = []
        try:
            pipeline = self._pipeline()
            for earlier in self.suite.session_cases[:position]:
                for turn in earlier.turns:
                    self._mutate(pipeline, turn)
        except Exception as exc:  # noqa: BLE001 - recorded as every turn's error, run continues
            return [self._session_error(case, turn, mode, exc) for turn in case.turns for mode in modes]
        after = self.rules.mutations is MutationTiming.AFTER_CHECKS
        for turn in case.turns:
            if not after and (error := self._try_mutate(pipeline, turn)):
                results += [self._session_error(case, turn, mode, error) for mode in modes]
                continue
            turn_results = []
            for mode in modes:
                result = self._turn_result(case, turn, mode)
                try:
                    context = self._retrieve_and_judge(pipeline, result, turn.expect, mode, CaseKind.SESSION)
                    result.drift = self._drift(pipeline, turn, context)
                except Exception as exc:  # noqa: BLE001 - recorded as the turn's error, run continues
                    result.fail_with(exc)
                turn_results.append(result)
            if after and (error := self._try_mutate(pipeline, turn)):
                turn_results = [r.fail_with(error) for r in turn_results]
            results += turn_results
        return results

    def _try_mutate(self, pipeline: MemoryPipeline, turn: Turn) -> Exception | None:
        """Applies the turn's create/update; the error, if any, is the turn's (the run goes on)."""
        try:
            self._mutate(pipeline, turn)
        except Exception as exc:  # noqa: BLE001 - returned as the turn's error, run continues
            return exc
        return None

    @staticmethod
    def _mutate(pipeline: MemoryPipeline, turn: Turn) -> None:
        if turn.create is not None:
            pipeline.put(turn.create)
        if turn.update is not None:
            pipeline.add_aliases(turn.update.memory_id, turn.update.add_aliases)

    def _turn_result(self, case: SessionCase, turn: Turn, mode: Mode) -> CaseResult:
        return self._result(
            "session",
            case.id,
            case.user,
            mode,
            turn.message,
            turn.scopes,
            turn.budget,
            turn.expect,
            turn=turn.index,
            turn_label=turn.label.value,
        )

    def _result(
        self,
        kind: str,
        case_id: str,
        user: str | None,
        mode: Mode,
        query: str,
        scopes: Sequence[str],
        budget: Budget | None,
        expect: Expect,
        **where: Any,
    ) -> CaseResult:
        """A result row before retrieval: what was asked, and what the case expects."""
        return asked(
            self.suite, self.backend.name, kind, case_id, user, mode.value, query, scopes, budget, expect, **where
        )

    def _session_error(self, case: SessionCase, turn: Turn, mode: Mode, exc: Exception) -> CaseResult:
        return self._turn_result(case, turn, mode).fail_with(exc)

    def _drift(self, pipeline: MemoryPipeline, turn: Turn, context: Context) -> float:
        """Noise: surfaced memories the turn bans, or whose topics miss the turn's topics; where the
        rules check sessions over relevant and pinned, a banned pinned memory is noise too."""
        banned = set(turn.expect.noise.must_not_surface) if turn.expect.noise else set()
        topics = set(turn.topics)

        def is_noise(memory_id: str) -> bool:
            memory_topics = set(pipeline.memory(memory_id).topics)
            return memory_id in banned or bool(topics and memory_topics and topics.isdisjoint(memory_topics))

        surfaced = list(context.relevant_ids)
        if self.rules.checks_union(CaseKind.SESSION):
            surfaced += [m for m in context.pinned if m in banned]
        noise = sum(1 for memory_id in surfaced if is_noise(memory_id))
        return drift_score(noise, len(context.relevant), len(context.pinned))

    # -- shared ---------------------------------------------------------------------------------

    def _retrieve_and_judge(
        self, pipeline: MemoryPipeline, result: CaseResult, expect: Expect, mode: Mode, kind: CaseKind
    ) -> Context:
        request = Request(result.user, tuple(result.scopes), result.query, result.max_beliefs)
        start = time.perf_counter()
        context = pipeline.retrieve(request, mode)
        result.latency_ms = (time.perf_counter() - start) * 1000.0
        result.retrieved = context_record(context)
        result.reasons += judge(
            expect,
            context,
            union=self.rules.checks_union(kind),
            case_sensitive_prelude=self.rules.prelude_case_sensitive,
        )
        result.passed = not result.reasons
        expected = expect.relevant.expected if expect.relevant else None
        if expected:
            qrels = dict.fromkeys(expected, 1)
            ranking = list(context.relevant_ids)
            result.precision, result.recall, result.ndcg, result.reciprocal_rank = (
                measure(ranking, qrels) for measure in SUITE_MEASURES
            )
        if result.passed:
            result.pass_type = classify(
                expected_relevant=expected,
                query=result.query,
                max_beliefs=result.max_beliefs,
                pinned_count=len(context.pinned),
            ).value
        return context


@dataclass(frozen=True)
class Plan:
    """Suites in modes: `limit` keeps the first N cases of each kind of each suite, `shard` the
    cases whose id hashes to it, `only` the cases of these ids (a session case still replays every
    earlier session, run or not)."""

    suites: Sequence[Suite]
    modes: Sequence[Mode]
    settings: PipelineSettings = field(default_factory=PipelineSettings)
    limit: int | None = None
    shard: Shard | None = None
    only: frozenset[str] | None = None

    def runs(self, case_id: str) -> bool:
        return (self.shard is None or self.shard.owns(case_id)) and (self.only is None or case_id in self.only)

    def limited(self) -> list[Suite]:
        if self.limit is None:
            return list(self.suites)
        return [
            replace(s, static_cases=s.static_cases[: self.limit], session_cases=s.session_cases[: self.limit])
            for s in self.suites
        ]

    @property
    def needs_vectors(self) -> bool:
        return any(mode.needs_vectors for mode in self.modes)

    def steps(self) -> int:
        """Progress units: one per static case and mode, one per session case (all its modes)."""
        return sum(
            sum(map(self.runs, (c.id for c in s.static_cases))) * len(self.modes)
            + sum(map(self.runs, (c.id for c in s.session_cases)))
            for s in self.limited()
        )


def steps(plan: Plan, backend: Backend, embedder: TextEmbedder | None) -> Iterator[tuple[str, list[CaseResult]]]:
    """(case id, its results) per progress step, as they finish: an interrupted run keeps what it yielded."""
    for suite in plan.limited():
        runner = SuiteRunner(backend, suite, settings=plan.settings, embedder=embedder)
        try:
            for mode in plan.modes:
                for case in filter(lambda c: plan.runs(c.id), suite.static_cases):
                    yield case.id, [runner.run_static(case, mode)]
            for position, session in enumerate(suite.session_cases):
                if plan.runs(session.id):
                    yield session.id, runner.run_session(position, plan.modes)
        finally:
            runner.close()


def execute(plan: Plan, backend: Backend, embedder: TextEmbedder | None) -> list[CaseResult]:
    """Every result of the plan on one backend (tests and the benchmark; runs go through `BeliefKind`)."""
    return [result for _, step in steps(plan, backend, embedder) for result in step]


@dataclass(frozen=True)
class BeliefKind:
    """Belief suites as a case kind: the plan's suites, judged by their rulesets.

    `fail_under`: the pass rate under which a mode fails the run's gate; the report records
    `embedding_model`.
    """

    plan: Plan
    fail_under: float | None = None
    embedding_model: str | None = None
    name: str = "beliefs"
    unit: str = "cases"
    asserted: ClassVar[frozenset[Mode]] = frozenset({Mode.BM25})
    """bm25 is the system under test: every case of a suite is written for it to pass."""
    through_systems: ClassVar[bool] = True
    """It runs on any system under test (`harness/evaluation/system_beliefs.py`)."""

    @property
    def baseline_suite(self) -> str:
        return "+".join(s.name for s in self.plan.suites)

    def _in(self, modes: Sequence[Mode]) -> Plan:
        return replace(self.plan, modes=list(modes))

    def total(self, modes: Sequence[Mode]) -> int:
        return self._in(modes).steps()

    def texts(self) -> Iterable[str]:
        fields = self.plan.settings.fields
        return dict.fromkeys(t for s in self.plan.limited() for t in suite_texts(s, fields))

    def prepare(self) -> None:
        """Nothing: the runner's embedder is all it needs."""

    def inputs(self) -> list[Path]:
        return [path for s in self.plan.suites for path in s.sources]

    def item_ids(self) -> list[str]:
        ids = [c.id for s in self.plan.limited() for c in s.static_cases]
        ids += [c.id for s in self.plan.limited() for c in s.session_cases]
        return [i for i in ids if self.plan.runs(i)]

    def execute(self, engine: Engine) -> Iterator[Step[CaseResult]]:
        plan = self._in(engine.modes)
        if engine.system is None:
            found = steps(plan, engine.backend, engine.embedder)
        else:
            found = system_beliefs.steps(plan.limited(), plan.modes, plan.runs, engine.system, engine.backend.name)
        for case_id, results in found:
            yield Step(case_id, results)

    def items(self) -> list[Item]:
        """A static case or a whole session case per item: the static cases of a suite share one
        index (one group), each session case plays its turns in an index of its own. Groups name
        their suite by position, as suites may share names."""
        return [
            item
            for i, suite in enumerate(self.plan.limited())
            for item in [Item(c.id, f"{i}:static") for c in suite.static_cases if self.plan.runs(c.id)]
            + [Item(c.id, f"{i}:session:{c.id}") for c in suite.session_cases if self.plan.runs(c.id)]
        ]

    def only(self, group: str) -> BeliefKind:
        ids = frozenset(item.id for item in self.items() if item.group == group)
        suite = self.plan.suites[int(group.partition(":")[0])]
        return replace(self, plan=replace(self.plan, suites=[suite], only=ids))

    def failures(self, result: CaseResult) -> list[str]:
        """The judge's reasons; a session turn's on one line, after the turn."""
        if result.passed:
            return []
        if result.kind == "session":
            return [f"turn {result.turn} ({result.turn_label}): " + "; ".join(result.reasons)]
        return list(result.reasons)

    def report(self, results: Sequence[CaseResult], run: RunInfo) -> Report:
        """A belief run's report on one backend: files, scorecard, TREC runs and its `--fail-under` gate."""
        cases = list(results)
        model = self.embedding_model if self.plan.needs_vectors else None
        plan, fail_under, backend = self.plan, self.fail_under, run.backend.backend
        summaries = summarize(cases) + [ModeSummary.not_run(backend, m.value, r) for m, r in run.unsupported.items()]
        meta = run_metadata(
            run.backend,
            suites=[suite_record(s, model) for s in plan.suites],
            modes=[m.value for m in run.modes],
            unsupported_modes={m.value: r for m, r in run.unsupported.items()},
            settings={"fields": dict(plan.settings.fields), "rrf_k": plan.settings.rrf_k, **run.settings},
            embedding_model=model,
        )
        data = run_report.build(meta, summaries, cases, memory_texts(plan.suites, cases))
        gates = [
            f"{s.backend}/{s.mode}: pass rate {s.pass_rate:.3f} is under --fail-under {fail_under}"
            for s in summaries
            if fail_under is not None and not s.unsupported and s.pass_rate < fail_under
        ]
        return Report(
            stem=f"run-{backend}",
            data=data,
            markdown=run_report.to_markdown(data),
            scorecard=run_report.scorecard(data, f"{backend}: {', '.join(s.name for s in plan.suites)}"),
            trec=suite_trec(cases) if run.incomplete is None else {},
            scores=suite_scores(cases),
            settings=run_report.baseline_settings(plan.settings, plan.limit, model),
            gates=gates,
        )


class FieldSet(StrEnum):
    """The retrieval surface belief cases are matched on."""

    SURFACE = "surface"
    CONTENT = "content"

    @property
    def weights(self) -> Mapping[str, float]:
        return SURFACE_FIELDS if self is FieldSet.SURFACE else CONTENT_FIELDS


@dataclass(frozen=True)
class BeliefOptions:
    fields: FieldSet = field(
        default=FieldSet.SURFACE,
        metadata=option("Retrieval surface: surface (name + aliases) or content.", texts=True),
    )


def build(suites: Sequence[str], common: KindOptions, own: BeliefOptions) -> BeliefKind:
    """The belief suites of a run, as one kind (one report)."""
    settings = PipelineSettings(fields=own.fields.weights)
    plan = Plan([load_suite(s) for s in suites], common.modes, settings, common.limit, common.shard)
    return BeliefKind(plan, common.fail_under, common.embedding_model)


def run_order(kind: BeliefKind, modes: Sequence[str]) -> Callable[[CaseResult], tuple[int, ...]]:
    """A result's position in a run: per suite, its static cases mode by mode, then its session
    cases, each turn by turn in every mode (as `steps` runs them)."""
    suites = [s.name for s in kind.plan.suites]
    cases = {
        (s.name, case_id): i
        for s in kind.plan.suites
        for i, case_id in enumerate([c.id for c in s.static_cases] + [c.id for c in s.session_cases])
    }

    def key(result: CaseResult) -> tuple[int, ...]:
        where, case, mode = suites.index(result.suite), cases[(result.suite, result.case_id)], modes.index(result.mode)
        return (where, 0, mode, case, 0) if result.kind == "static" else (where, 1, case, result.turn or 0, mode)

    return key


def result_from_json(data: Mapping[str, Any]) -> CaseResult:
    return CaseResult(**data)


SPEC = KindSpec(
    name="beliefs",
    title="Belief suites",
    suite_help="builtin, tenure:DIR, a suite folder",
    build=build,
    result=result_from_json,
    order=run_order,
    builtin="builtin",
    results_key="cases",
    options=BeliefOptions,
    honours=frozenset({"fail_under", "trec"}),
    grouped=True,
    main=("pass_rate",),
    row=lambda r: RowText(
        f"{r.suite}/{r.case_id}" + ("" if r.turn is None else f"#{r.turn}"), r.category or "", r.query
    ),
    rule="the case's assertions did not all hold (its reasons say which)",
)
