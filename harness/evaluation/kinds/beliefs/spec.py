"""Belief retrieval cases: static snapshots and session turns over one corpus (built-in, Tenure,
PMB), as a case kind. The runner (`runner.py`) plays them through the port `adapter` chooses: the
reference pipeline (`reference.py`) or the system under test (`system.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar

from harness.evaluation.kind import Engine, Item, KindOptions, KindSpec, Step, option
from harness.evaluation.kinds.beliefs import pmb
from harness.evaluation.kinds.beliefs.adapted import PERSONA_STAND_IN, AdaptedPort, SystemSearches
from harness.evaluation.kinds.beliefs.context_choice import chosen_rule, refuse_on_reference
from harness.evaluation.kinds.beliefs.memory_texts import memory_texts
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.port import BeliefPort
from harness.evaluation.kinds.beliefs.reference import EngineSearches, ReferencePort
from harness.evaluation.kinds.beliefs.report import baseline_settings, summarize, to_markdown
from harness.evaluation.kinds.beliefs.report import build as report_body
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.runner import steps
from harness.evaluation.kinds.beliefs.scores import suite_scores, suite_trec
from harness.evaluation.kinds.beliefs.summary import ModeSummary, scorecard
from harness.evaluation.kinds.beliefs.system import SystemPort
from harness.pipeline import Mode, PipelineSettings
from harness.pipeline.context_rules import ContextRuleName, adapter_rules
from harness.pipeline.settings import CONTENT_FIELDS, SURFACE_FIELDS
from harness.reports.document import Report, RowText, RunInfo
from harness.reports.metadata import run_metadata, suite_record
from harness.suites import load_suite
from harness.suites.texts import suite_texts
from harness.systems.protocol import REFERENCE


def adapter(engine: Engine, settings: PipelineSettings, rule: ContextRuleName) -> BeliefPort:
    """What answers the cases on `engine`: the reference pipeline, or the system under test through
    the protocol; inside the adapter `rule` names where it names one, around the reference
    pipeline's engine search or the system's search."""
    rules = adapter_rules(rule)
    if rules is not None:
        if engine.system.reference:
            return AdaptedPort(EngineSearches(engine.backend, settings, engine.embedder), rules)
        return AdaptedPort(SystemSearches(engine.system, rules), rules)
    if engine.system.reference:
        return ReferencePort(engine.backend, settings, engine.embedder)
    return SystemPort(engine.system)


@dataclass(frozen=True)
class BeliefKind:
    """Belief suites as a case kind: the plan's suites, judged by their rulesets.

    `fail_under`: the pass rate under which a mode fails the run's gate; the report records
    `embedding_model`; `context_rules`: who builds the tiers around a system's search (None: the
    default for the system, `context_choice.chosen_rule`).
    """

    plan: Plan
    fail_under: float | None = None
    embedding_model: str | None = None
    context_rules: ContextRuleName | None = None
    name: str = "beliefs"
    unit: str = "cases"
    asserted: ClassVar[frozenset[Mode]] = frozenset({Mode.BM25})
    """bm25 is the system under test: every case of a suite is written for it to pass."""
    through_systems: ClassVar[bool] = True
    """It runs on any system under test (`system.py`)."""

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
        """Refuse context rules that cannot wrap the reference system (the matrix prepares a kind
        for the reference system only), before anything runs; the runner's embedder is all else it needs."""
        refuse_on_reference(self.context_rules)

    def inputs(self) -> list[Path]:
        return [path for s in self.plan.suites for path in s.sources]

    def item_ids(self) -> list[str]:
        ids = [c.id for s in self.plan.limited() for c in s.static_cases]
        ids += [c.id for s in self.plan.limited() for c in s.session_cases]
        return [i for i in ids if self.plan.runs(i)]

    def rule(self, reference: bool) -> ContextRuleName:
        return chosen_rule(self.context_rules, self.plan.suites, reference)

    def execute(self, engine: Engine) -> Iterator[Step[CaseResult]]:
        plan = self._in(engine.modes)
        if engine.system.reference:
            refuse_on_reference(self.context_rules)
        port = adapter(engine, plan.settings, self.rule(engine.system.reference))
        yield from steps(plan, port, engine.backend.name, engine.crew)

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
        rule = self.rule(run.system.name == REFERENCE)
        meta = run_metadata(
            run.backend,
            suites=[suite_record(s, model) for s in plan.suites],
            modes=[m.value for m in run.modes],
            unsupported_modes={m.value: r for m, r in run.unsupported.items()},
            settings={"fields": dict(plan.settings.fields), "rrf_k": plan.settings.rrf_k, **run.settings},
            embedding_model=model,
            context_rules={"name": rule.value, "prelude": PERSONA_STAND_IN if adapter_rules(rule) else None},
        )
        data = report_body(meta, summaries, cases, memory_texts(plan.suites, cases))
        scores = suite_scores(cases)
        if adapter_rules(rule) is not None:  # under PrecisionMemBench's rules, its measures too
            found = pmb.summaries(cases, plan.suites)
            data["precisionmembench"] = found
            scores = pmb.with_pmb(scores, found)
        gates = [
            f"{s.backend}/{s.mode}: pass rate {s.pass_rate:.3f} is under --fail-under {fail_under}"
            for s in summaries
            if fail_under is not None and not s.unsupported and s.pass_rate < fail_under
        ]
        return Report(
            stem=f"run-{backend}",
            data=data,
            markdown=to_markdown(data),
            scorecard=scorecard(data, f"{backend}: {', '.join(s.name for s in plan.suites)}"),
            trec=suite_trec(cases) if run.incomplete is None else {},
            scores=scores,
            settings=baseline_settings(plan.settings, plan.limit, model)
            | ({"context_rules": rule.value} if adapter_rules(rule) else {}),
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
    context_rules: ContextRuleName | None = field(
        default=None,
        metadata=option(
            "Who builds the tiers around a system's search: precisionmembench (its adapter at ec8347b, "
            "as its published rows), precisionmembench@2209e60, precisionmembench-vector (also around "
            "the reference pipeline's engine search), or system-provides-tiers (default: "
            "precisionmembench for tenure: suites on a system other than the reference, else "
            "system-provides-tiers; docs/peer-rules.md)."
        ),
    )


def build(suites: Sequence[str], common: KindOptions, own: BeliefOptions) -> BeliefKind:
    """The belief suites of a run, as one kind (one report)."""
    settings = PipelineSettings(fields=own.fields.weights)
    plan = Plan([load_suite(s) for s in suites], common.modes, settings, common.limit, common.shard)
    chosen = None if own.context_rules is None else ContextRuleName(own.context_rules)  # merge reads a plain string
    return BeliefKind(plan, common.fail_under, common.embedding_model, context_rules=chosen)


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
    main=("pass_rate",),
    row=lambda r: RowText(
        f"{r.suite}/{r.case_id}" + ("" if r.turn is None else f"#{r.turn}"), r.category or "", r.query
    ),
    rule="the case's assertions did not all hold (its reasons say which)",
    rules=lambda kind, reference: kind.rule(reference).value,
)
