"""Lifecycle scenarios as a case kind: each scenario runs in every mode on its own namespace,
through ingest, baseline queries, access simulation, consolidation cycles and post queries."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any

from harness.embeddings import DEFAULT_MODEL
from harness.errors import HarnessError
from harness.evaluation.embedders import embed_ahead, suite_embedder
from harness.evaluation.judged_rules import Rule
from harness.evaluation.kind import Engine, Item, KindOptions, KindSpec, Step, option
from harness.evaluation.kinds.lifecycle import runner
from harness.evaluation.kinds.lifecycle.port import Adapter, not_applicable
from harness.evaluation.kinds.lifecycle.reference import ReferenceAdapter
from harness.evaluation.kinds.lifecycle.report import render_markdown, scorecard_rows
from harness.evaluation.kinds.lifecycle.results import LifecycleResult, judge
from harness.evaluation.kinds.lifecycle.summary import ModeSummary, summarise
from harness.evaluation.kinds.lifecycle.system import UNOBSERVED, SystemAdapter
from harness.metrics.evaluate import QrelsByQuery, RunByQuery
from harness.metrics.grades import THRESHOLDS, Grade
from harness.models.scenario import LifecycleSuite, Scenario
from harness.models.scoresheet import CaseScore, ScoreSheet
from harness.pipeline.lifecycle.memory import seed
from harness.pipeline.lifecycle.rules import HARNESS_RULES, MNEMONIC_RULES, LifecycleRules, RulesetName, lifecycle_rules
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RowText, RunInfo, Scorecard
from harness.suites.mnemonic import load_mnemonic, unjudged
from harness.suites.resolve import load_lifecycle
from harness.systems.protocol import REFERENCE, SystemInfo


class LifecycleKind:
    """`embedder` gives every vector of the run: duplicate detection compares them in every mode
    (bm25 too), so the kind uses its own rather than the engine's, which only vector modes get;
    `verbose` adds per-cycle and per-query lines under the scorecard; `rules` is whose retrieval
    runs (`pipeline/lifecycle/rules.py`); `gate` the grade at or under which a mode fails the
    run (None: grades are reported, never gated)."""

    name = "lifecycle"
    unit = "scenarios"
    asserted: frozenset[Mode] = frozenset()
    """No mode is the system under test: the gate is a mode's overall grade, and a scenario's own
    grade is a measurement (built-in scenarios FAIL on P@5 in every mode while the modes pass)."""
    through_systems = True
    """It runs on a system that declares what its phases need (`port.needed`), through `system.py`."""

    def __init__(
        self,
        suite: LifecycleSuite,
        embedder: TextEmbedder | None,
        settings: LifecycleSettings | None = None,
        verbose: bool = False,
        embedding_model: str | None = None,
        rules: LifecycleRules = HARNESS_RULES,
        gate: Grade | None = None,
    ):
        """`embedder` None: one for `embedding_model` is built when first needed (`prepare`)."""
        self.suite = suite
        self.settings = settings or LifecycleSettings()
        self.verbose = verbose
        self.embedding_model = embedding_model
        self.rules = rules
        self.gate = gate
        self._embedder = embedder
        self._building = threading.Lock()  # scenarios on worker threads (`--concurrency`) build it once

    @property
    def embedder(self) -> TextEmbedder:
        """The embedder duplicate detection needs, built (and its texts embedded) on first use."""
        with self._building:
            if self._embedder is None:
                embedder = suite_embedder(self.embedding_model or DEFAULT_MODEL)
                embed_ahead(self, embedder)
                self._embedder = embedder
            return self._embedder

    def prepare(self) -> None:
        """Load the model and embed every text now, so a model that cannot load fails before the run."""
        self.embedder  # noqa: B018 - building it is the point

    def inputs(self) -> list[Path]:
        return list(self.suite.sources)

    def item_ids(self) -> list[str]:
        return [s.name for s in self.suite.scenarios]

    @property
    def baseline_suite(self) -> str:
        return self.suite.name

    def total(self, modes: Sequence[Mode]) -> int | None:  # noqa: ARG002 - one step per scenario, all its modes
        return len(self.suite.scenarios)

    def texts(self) -> Iterable[str]:
        """What the pipeline embeds: each seeded memory's text (raw events as encoded) and each query."""
        for scenario in self.suite.scenarios:
            yield from (t.text for t in seed(scenario, self.settings).texts)
            yield from (q.query for q in scenario.queries)

    def not_applicable_to(self, system: SystemInfo) -> str | None:
        """Why the scenarios cannot run on a system under test: a capability the phases need that it lacks."""
        return not_applicable(system, self.settings)

    def adapter(self, engine: Engine) -> Adapter:
        """What answers the scenarios on this engine: the reference pipeline for the reference
        system, else the bound system through the protocol."""
        if engine.system.reference:
            return ReferenceAdapter(engine.backend, self.embedder, self.settings, self.rules)
        return SystemAdapter(engine.system)

    def execute(self, engine: Engine) -> Iterator[Step[LifecycleResult]]:
        """Each scenario a task of the engine's crew: it runs in namespaces of its own."""
        yield from engine.crew.steps(partial(self._scenario, engine, scenario) for scenario in self.suite.scenarios)

    def _scenario(self, engine: Engine, scenario: Scenario) -> Iterator[Step[LifecycleResult]]:
        limit = self.suite.max_results
        results = []
        for mode in engine.modes:
            result = LifecycleResult(scenario.name, scenario.raw, engine.backend.name, mode.value)
            try:
                # the adapter here, in the try: a reference embedder that fails to build is this result's error
                port = self.adapter(engine).open(scenario, mode)
                run = runner.run(scenario, port, limit, self.settings)
                results.append(judge(scenario, run, result, limit, self.rules.fixed_cutoff))
            except Exception as exc:  # noqa: BLE001 - a scenario's error is its result; the run goes on
                results.append(result.fail_with(exc))
        yield Step(scenario.name, results)

    def items(self) -> list[Item]:
        """A scenario per item: it runs in a namespace of its own, so it is its own group."""
        return [Item(s.name, s.name) for s in self.suite.scenarios]

    def only(self, group: str) -> LifecycleKind:
        scenarios = tuple(s for s in self.suite.scenarios if s.name == group)
        return LifecycleKind(
            replace(self.suite, scenarios=scenarios),
            self._embedder,
            self.settings,
            self.verbose,
            self.embedding_model,
            self.rules,
            self.gate,
        )

    def failures(self, result: LifecycleResult) -> list[str]:
        """A FAIL grade: each gating metric under its warning threshold, with its value."""
        if result.grade != "FAIL":
            return []
        values = {**result.after, **result.lifecycle}
        return [
            Rule.QUALITY.reason(
                name,
                f"{values[name]:.2f} grades FAIL (PASS at {THRESHOLDS[name].passing}, WARN at {THRESHOLDS[name].warning})",
            )
            for name, grade in result.grades.items()
            if grade == "FAIL" and THRESHOLDS[name].gating
        ]

    def report(self, results: Sequence[LifecycleResult], run: RunInfo) -> Report:
        modes = [m.value for m in run.modes]
        through = run.system.name != REFERENCE and run.not_applicable is None
        summaries = {m: summarise(m, [r for r in results if r.mode == m]) for m in modes}
        data = {
            "max_results": self.suite.max_results,
            "ruleset": self.rules.name,
            "setting_docs": [{"name": n, "value": v, "doc": d} for n, v, d in self.settings.describe()],
            "warnings": list(self.suite.warnings) + ([UNOBSERVED] if through else []),
            "summary": {m: asdict(s) for m, s in summaries.items()},
            "results": [r.to_json() for r in results],
        }
        view = run.envelope() | {"suite": self.suite.name} | data
        return Report(
            stem=f"lifecycle-{run.backend.backend}",
            data=data,
            markdown=render_markdown(view),
            scorecard=Scorecard(
                f"lifecycle scenarios: {self.suite.name} (rules {self.rules.name}) on {run.backend.backend}",
                *scorecard_rows(view, self.verbose),
            ),
            scores={m: _sheet(s, [r for r in results if r.mode == m]) for m, s in summaries.items()},
            settings={
                **self.settings.as_dict(),
                "max_results": self.suite.max_results,
                "rules": self.rules.as_dict(),
                "scenarios": [sc.name for sc in self.suite.scenarios],
                "embedding_model": self.embedding_model,
            },
            gates=_gates(summaries, self.gate),
            trec={m: _trec([r for r in results if r.mode == m]) for m in modes} if run.incomplete is None else {},
        )


def _sheet(summary: ModeSummary, results: Sequence[LifecycleResult]) -> ScoreSheet:
    """Overall: the post-consolidation scores and lifecycle shares; categories: before/after and
    raw events; cases: each scenario, passed unless its grade is FAIL, scored by its P@5 after."""
    overall = {**summary.after, **summary.lifecycle}
    categories = {"before": summary.before, "raw_events": summary.raw}
    cases = {
        r.scenario: CaseScore(
            passed=r.error is None and r.grade != "FAIL", score=r.after.get("precision") if r.error is None else None
        )
        for r in results
    }
    return ScoreSheet(overall=overall, categories={k: v for k, v in categories.items() if v}, cases=cases)


def _gates(summaries: dict[str, ModeSummary], gate: Grade | None) -> list[str]:
    """A mode whose overall grade is `gate` or worse fails the run, naming the gate and the
    metrics that graded it so; without a gate no grade fails it (errored scenarios are the
    runner's error threshold)."""
    if gate is None:
        return []
    worse = {Grade.FAIL} if gate is Grade.FAIL else {Grade.WARN, Grade.FAIL}
    gates = []
    for mode, summary in summaries.items():
        if summary.grade in worse:
            metrics = ", ".join(
                n for n, g in summary.grades.items() if g in worse and g != Grade.PASS and THRESHOLDS[n].gating
            )
            gates.append(f"lifecycle {mode}: overall grade {summary.grade} ({metrics}) under --fail-on-grade {gate}")
    return gates


def _trec(results: Sequence[LifecycleResult]) -> tuple[RunByQuery, QrelsByQuery]:
    """Post-consolidation rankings of direct scenarios (`scenario#query number`) and their judgements."""
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for result in (r for r in results if r.error is None and not r.raw):
        for number, query in enumerate(result.queries, 1):
            qid = f"{result.scenario}#{number}"
            run[qid] = {hit["id"]: hit["score"] for hit in query["after"]}
            qrels[qid] = dict.fromkeys(query["expected"], 1)
    return run, qrels


class GateGrade(StrEnum):
    WARN = Grade.WARN.value
    FAIL = Grade.FAIL.value


@dataclass(frozen=True)
class LifecycleOptions:
    cycles: int | None = field(
        default=None, metadata=option("Consolidation cycles between the queries (default 5).", min=0)
    )
    verbose: bool = field(default=False, metadata=option("Add per-cycle and per-query lines under the scorecard."))
    fail_on_grade: GateGrade | None = field(
        default=None,
        metadata=option("Exit 1 when a mode's overall grade is this or worse (WARN: WARN or FAIL); default: no gate."),
    )
    lifecycle_rules: RulesetName | None = field(
        default=None,
        metadata=option(
            "Whose retrieval rules run (default: mnemonic-8ecf3ab for mnemonic:PATH, harness for lifecycle:builtin)."
        ),
    )


def build(suites: Sequence[str], common: KindOptions, own: LifecycleOptions) -> LifecycleKind:
    """`lifecycle:builtin` (the scenarios written for this harness) or `mnemonic:PATH` (a
    Mnemonic-format scenario file, or a folder of them): `--limit` keeps the first scenarios and
    `--shard` those whose name hashes to the shard."""
    if common.fail_under is not None:
        raise HarnessError("--fail-under does not apply to lifecycle scenarios: gate their grade with --fail-on-grade")
    (suite_spec,) = suites
    prefix, _, rest = suite_spec.partition(":")
    suite = load_lifecycle(rest) if prefix == "lifecycle" else load_mnemonic(Path(rest).expanduser(), name=suite_spec)
    scenarios = suite.scenarios[: common.limit] if common.limit is not None else suite.scenarios
    if common.shard is not None:
        scenarios = common.shard.keep(scenarios)
    try:
        settings = LifecycleSettings(cycles=own.cycles if own.cycles is not None else LifecycleSettings().cycles)
    except ValueError as exc:
        raise HarnessError(f"--cycles: {exc}") from None
    model = common.embedding_model or DEFAULT_MODEL
    default = MNEMONIC_RULES if prefix == "mnemonic" else HARNESS_RULES
    rules = lifecycle_rules(own.lifecycle_rules) if own.lifecycle_rules is not None else default
    gate = Grade(own.fail_on_grade) if own.fail_on_grade is not None else None
    suite = replace(suite, scenarios=tuple(scenarios))
    if prefix == "mnemonic":
        suite = replace(suite, warnings=suite.warnings + tuple(unjudged(suite, rules)))
    return LifecycleKind(suite, None, settings, own.verbose, model, rules, gate)


def result_from_json(data: Mapping[str, Any]) -> LifecycleResult:
    return LifecycleResult.from_json(data)


SPEC = KindSpec(
    name="lifecycle",
    title="Lifecycle scenarios",
    suite_help="lifecycle:builtin, mnemonic:PATH",
    build=build,
    result=result_from_json,
    builtin="lifecycle:builtin",
    results_key="results",
    prefixes=("lifecycle", "mnemonic"),
    options=LifecycleOptions,
    honours=frozenset({"trec"}),
    main=("precision", "recall"),
    row=lambda r: RowText(
        r.scenario, "raw events" if r.raw else "scenario", "; ".join(str(q.get("query", "")) for q in r.queries)
    ),
    rule="the scenario's grade is FAIL (a gating metric below its warning threshold)",
    rules=lambda kind, _reference: kind.rules.name,
)
