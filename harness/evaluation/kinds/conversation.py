"""Conversation turns over projects as a case kind: each scenario's project is ingested into a
fresh namespace per mode (a chat-only scenario starts empty), its turns are played in order
through `prepare` and `process`, and each turn is judged (`turn_judge`, under the run's
`turn_rules`) and measured against the scripted agent and the whole history.
"""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from harness import tokens
from harness.errors import HarnessError
from harness.evaluation import system_conversation, teardown
from harness.evaluation.kind import Engine, Item, KindOptions, KindSpec, Step, option
from harness.evaluation.results import Fails
from harness.evaluation.scripted_agent import AgentRun, ScriptedAgent
from harness.evaluation.turn_judge import judge_turn
from harness.evaluation.turn_rules import STRICT, TurnRules, TurnRulesName
from harness.models.conversation import ConversationSuite, ConversationTurn, Scenario
from harness.models.project import Project
from harness.pipeline.conversation import ContextSettings, Conversation, search_text
from harness.pipeline.facts import fact_record, stated_facts
from harness.pipeline.project_memory import ProjectMemory, embedding_text
from harness.pipeline.settings import Mode
from harness.reports.conversation_report import build_report
from harness.reports.document import Report, RowText, RunInfo
from harness.suites.acervo import load_acervo
from harness.suites.projects.ingest import ingest
from harness.suites.resolve import load_conversation
from harness.systems.bound import BoundSystem
from harness.systems.protocol import SystemInfo


@dataclass
class TurnResult(Fails):
    """One turn in one mode: the context it got, the verdict per component, and the token counts."""

    suite: str
    scenario: str
    turn: int
    category: str
    backend: str
    mode: str | None
    user: str
    expected: dict[str, Any]
    intent: str | None = None
    context: str = ""
    tokens: int = 0
    """The rendered context's cl100k_base tokens (the warm tokens)."""
    records: list[dict[str, Any]] = field(default_factory=list)
    facts_stored: list[str] = field(default_factory=list)
    components: dict[str, bool] = field(default_factory=dict)
    """Per asserted component, whether it held."""
    passed: bool = False
    """The turn's verdict under the run's turn rules."""
    counted: bool = True
    """Whether the turn counts in its category's score (under the run's turn rules)."""
    effective: bool = False
    """Whether it holds there: its deciding content checks held."""
    reasons: list[str] = field(default_factory=list)
    input_tokens: int = 0
    """What this turn sends: context plus message."""
    history_tokens: int = 0
    """What sending the whole history would: every earlier message and reply, plus this message."""
    agent_tokens: int | None = None
    """What the scripted agent read before it could answer (None: the turn has no answer terms)."""
    agent_steps: list[str] = field(default_factory=list)
    agent_answered: bool | None = None
    latency_ms: float | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    backend_lost: bool = False

    @property
    def item_id(self) -> str:
        return f"{self.scenario}#{self.turn}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class ConversationKind:
    """A loaded conversation suite, configured for a run."""

    name = "conversation"
    unit = "turns"
    asserted: frozenset[Mode] = frozenset()
    """No mode is the system under test: turn verdicts are scores (the built-in bm25 baselines
    record the turns that fail), so pytest holds turns to their committed baseline."""
    through_systems = True
    """It runs on a system that declares `budget` (`system_conversation.py`)."""

    def __init__(
        self,
        suite: ConversationSuite,
        settings: ContextSettings | None = None,
        fail_under: float | None = None,
        embedding_model: str | None = None,
        limit: int | None = None,
        rules: TurnRules = STRICT,
    ):
        """`fail_under`: a mode whose turn pass rate is under it fails the run (a quality gate);
        `embedding_model` and `limit` are recorded with the scores (baselines compare like with like);
        `rules`: which checks decide a turn and which turns a category counts."""
        self.suite = suite
        self.settings = settings or ContextSettings()
        self.rules = rules
        self.fail_under = fail_under
        self.embedding_model = embedding_model
        self.limit = limit
        self._projects: dict[Path, Project] = {}
        self._agents: dict[Path, ScriptedAgent] = {}
        self._agent_runs: dict[tuple[str, int], AgentRun | None] = {}

    @classmethod
    def for_run(cls, suite: ConversationSuite, options: KindOptions, rules: TurnRules = STRICT) -> ConversationKind:
        """The kind for `harness run`: with `--shard`, the scenarios this shard owns (by name: a
        conversation's turns depend on each other, so it is never split); with `--limit N`, the
        first N turns of each; the embedding model recorded only when a mode uses it."""
        shard = options.shard
        scenarios = [s for s in suite.scenarios if shard is None or shard.owns(s.name)]
        if options.limit is not None:
            scenarios = [replace(s, turns=s.turns[: options.limit]) for s in scenarios]
        needs_vectors = any(m.needs_vectors for m in options.modes)
        model = options.embedding_model if needs_vectors else None
        return cls(replace(suite, scenarios=tuple(scenarios)), None, options.fail_under, model, options.limit, rules)

    @property
    def baseline_suite(self) -> str:
        return self.suite.name

    def project(self, scenario: Scenario) -> Project:
        """The scenario's project, ingested once per run (none for a chat-only scenario)."""
        if scenario.project is None:
            return Project(scenario.name, Path(), ())
        if scenario.project not in self._projects:
            self._projects[scenario.project] = ingest(scenario.project)
        return self._projects[scenario.project]

    def total(self, modes: Sequence[Mode]) -> int:
        return self.suite.turns * len(modes)

    def prepare(self) -> None:
        """Nothing: the runner's embedder is all it needs."""

    def inputs(self) -> list[Path]:
        """The suite folder's turn files (the projects are folders of code, read as they are)."""
        folder = self.suite.source
        return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml")) if folder.is_dir() else [folder]

    def item_ids(self) -> list[str]:
        return [f"{s.name}#{t.number}" for s in self.suite.scenarios for t in s.turns]

    def texts(self) -> Iterable[str]:
        for scenario in self.suite.scenarios:
            yield from (embedding_text(r) for r in self.project(scenario).records)
            history: list[tuple[str, str]] = []
            for turn in scenario.turns:
                yield search_text(turn.user, history)
                yield from (embedding_text(fact_record(s)) for s in stated_facts(turn.user))
                history.append((turn.user, turn.assistant))

    def not_applicable_to(self, system: SystemInfo) -> str | None:
        """Why the turns cannot run on a system under test: it does not declare a token budget."""
        return system_conversation.not_applicable(system)

    def execute(self, engine: Engine) -> Iterator[Step[TurnResult]]:
        for mode in engine.modes:
            for scenario in self.suite.scenarios:
                if engine.system is not None:
                    yield from self._through(engine.system, engine.backend.name, mode, scenario)
                else:
                    yield from self._scenario(engine, mode, scenario)

    def _through(self, system: BoundSystem, backend: str, mode: Mode, scenario: Scenario) -> Iterator[Step[TurnResult]]:
        """The scenario on a namespace of the system under test, turn by turn as `_scenario`."""
        opened = None
        setup_error: Exception | None = None
        conversation: system_conversation.SystemConversation | None = None
        try:
            opened = system.open(f"h{uuid.uuid4().hex[:12]}")
            conversation = system_conversation.SystemConversation(opened, self.project(scenario), mode, self.settings)
        except Exception as exc:  # noqa: BLE001 - every turn of the scenario reports it
            setup_error = exc
        try:
            history: list[tuple[str, str]] = []
            for turn in scenario.turns:
                result = self._result(backend, mode, scenario, turn, history)
                if conversation is None:
                    result.fail_with(setup_error or RuntimeError("no system namespace"))
                else:
                    self._play(conversation, turn, history, result, self.rules)
                    result.latency_ms = conversation.latency_ms
                    if turn.checks.intent is not None and result.error is None:
                        result.reasons.append(system_conversation.INTENT_NOT_JUDGED)
                history.append((turn.user, turn.assistant))
                yield Step(result.item_id, [result])
        finally:
            if opened is not None:
                teardown.close(opened)

    def _scenario(self, engine: Engine, mode: Mode, scenario: Scenario) -> Iterator[Step[TurnResult]]:
        backend = engine.backend
        memory: ProjectMemory | None = None
        setup_error: Exception | None = None
        try:
            memory = ProjectMemory.open(
                backend, f"c{uuid.uuid4().hex[:12]}", engine.embedder if mode.needs_vectors else None
            )
            project = self.project(scenario)
            if project.records:  # a chat-only scenario starts from an empty memory
                memory.load(project)
        except Exception as exc:  # noqa: BLE001 - every turn of the scenario reports it
            setup_error = exc
        try:
            conversation = Conversation(memory, mode, self.settings) if memory is not None else None
            history: list[tuple[str, str]] = []
            for turn in scenario.turns:
                result = self._result(backend.name, mode, scenario, turn, history)
                if setup_error is not None or conversation is None:
                    result.fail_with(setup_error or RuntimeError("no project memory"))
                else:
                    self._play(conversation, turn, history, result, self.rules)
                history.append((turn.user, turn.assistant))
                yield Step(result.item_id, [result])
        finally:
            if memory is not None:
                teardown.drop(memory.index, f"conversation {scenario.name!r} ({mode.value}) on {backend.name}")

    def _result(
        self, backend: str, mode: Mode, scenario: Scenario, turn: ConversationTurn, history: list[tuple[str, str]]
    ) -> TurnResult:
        spoken = "\n".join(f"{user}\n{assistant}" for user, assistant in history)
        agent = self._agent_run(scenario, turn, spoken)
        return TurnResult(
            counted=self.rules.counted(turn.checks, "effectiveness" in turn.notes),
            suite=self.suite.name,
            scenario=scenario.name,
            turn=turn.number,
            category=turn.category.value,
            backend=backend,
            mode=mode.value,
            user=turn.user,
            expected=_expected(turn),
            history_tokens=tokens.count(f"{spoken}\n{turn.user}" if spoken else turn.user),
            agent_tokens=agent.tokens if agent else None,
            agent_steps=list(agent.steps) if agent else [],
            agent_answered=agent.answered if agent else None,
            notes=dict(turn.notes),
        )

    def _agent_run(self, scenario: Scenario, turn: ConversationTurn, spoken: str) -> AgentRun | None:
        """The agent's reading does not depend on the backend or mode: measured once per turn
        (never without a project: it has no files to read)."""
        key = (scenario.name, turn.number)
        if scenario.project is None:
            return None
        if key not in self._agent_runs:
            if scenario.project not in self._agents:
                self._agents[scenario.project] = ScriptedAgent(scenario.project)
            agent = self._agents[scenario.project]
            self._agent_runs[key] = agent.run(spoken, turn.user, turn.checks.answer_terms)
        return self._agent_runs[key]

    @staticmethod
    def _play(
        conversation: Conversation | system_conversation.SystemConversation,
        turn: ConversationTurn,
        history: list[tuple[str, str]],
        result: TurnResult,
        rules: TurnRules,
    ) -> None:
        try:
            started = time.perf_counter()
            context = conversation.prepare(turn.user, history)
            result.latency_ms = (time.perf_counter() - started) * 1000
            stored = conversation.process(turn.user, turn.assistant)
            checks = turn.checks if isinstance(conversation, Conversation) else system_conversation.judged(turn.checks)
            verdict = judge_turn(checks, context, conversation.facts_containing, rules, "effectiveness" in turn.notes)
        except Exception as exc:  # noqa: BLE001 - the turn reports it and the conversation goes on
            result.fail_with(exc)
            return
        result.intent = context.intent.value
        result.context = context.text
        result.tokens = context.tokens
        result.input_tokens = context.tokens + tokens.count(turn.user)
        result.records = [
            {"id": a.record.id, "kind": a.record.kind.value, "label": a.label, "score": a.score}
            for a in context.records
        ]
        result.facts_stored = [r.text for r in stored]
        result.components = verdict.components
        result.reasons = verdict.reasons
        result.passed = verdict.passed
        result.counted = verdict.counted
        result.effective = verdict.effective

    def items(self) -> list[Item]:
        """A turn per item; a scenario's turns depend on each other, so they are played as one group."""
        return [Item(f"{s.name}#{t.number}", s.name) for s in self.suite.scenarios for t in s.turns]

    def only(self, group: str) -> ConversationKind:
        """The scenario `group`, sharing this kind's ingested projects and agent measurements."""
        kind = copy.copy(self)
        kind.suite = replace(self.suite, scenarios=tuple(s for s in self.suite.scenarios if s.name == group))
        return kind

    def failures(self, result: TurnResult) -> list[str]:
        return [] if result.passed else result.reasons or ["failed"]

    def report(self, results: Sequence[TurnResult], run: RunInfo) -> Report:
        settings = {**asdict(self.settings), "limit": self.limit, "embedding_model": self.embedding_model}
        if self.rules is not STRICT:  # the strict rules are the baselines' settings as they were frozen
            settings["turn_rules"] = self.rules.name
        return build_report(self.suite, results, run, settings, self.fail_under, self.rules.to_json())


def _expected(turn: ConversationTurn) -> dict[str, Any]:
    """The turn's asserted checks, in the report's words."""
    checks = asdict(turn.checks)
    return {k: v for k, v in checks.items() if v not in (None, ())}


@dataclass(frozen=True)
class ConversationOptions:
    turn_rules: TurnRulesName = field(
        default=TurnRulesName.AUTO,
        metadata=option(
            "Judge turns by: acervo-v0.5 (Acervo's test_benchmarks.py: its published numbers' rules), "
            "strict (every asserted check decides), auto (acervo-v0.5 for acervo: suites, else strict)."
        ),
    )


def build(suites: Sequence[str], common: KindOptions, own: ConversationOptions) -> ConversationKind:
    """`conversation:builtin` or `acervo:DIR` (a folder of turn files and fixture projects, or
    Acervo's repository root)."""
    (suite,) = suites
    prefix, _, rest = suite.partition(":")
    rules = own.turn_rules.rules(acervo_suite=prefix == "acervo")
    if prefix == "conversation":
        return ConversationKind.for_run(load_conversation(rest), common, rules)
    folder, _, projects = rest.partition(":")
    if not folder:
        raise HarnessError("--suite acervo:DIR: name the folder of turn files and fixture projects")
    loaded = load_acervo(
        Path(folder).expanduser(), name=suite, projects=Path(projects).expanduser() if projects else None
    )
    return ConversationKind.for_run(loaded, common, rules)


def result_from_json(data: Mapping[str, Any]) -> TurnResult:
    """A report's turn read back. Reports written before turn rules have no `effective`: they were
    judged strictly, where a turn holds in its category exactly when it passed."""
    if "effective" not in data:
        data = {**data, "effective": bool(data.get("passed", False))}
    return TurnResult.from_json(data)


SPEC = KindSpec(
    name="conversation",
    title="Conversation turns",
    suite_help="conversation:builtin, acervo:DIR",
    build=build,
    options=ConversationOptions,
    result=result_from_json,
    builtin="conversation:builtin",
    results_key="turns",
    prefixes=("conversation", "acervo"),
    honours=frozenset({"fail_under"}),
    mode_major=True,
    main=("pass_rate",),
    row=lambda r: RowText(f"{r.scenario}#{r.turn}", r.category, r.user),
    rule="a component (intent, activation, budget, content) failed (its reasons say which)",
)
