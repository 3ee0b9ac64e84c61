"""Conversation turns over projects: the one runner. For each mode, each scenario's conversation is
opened through the kind's port (`port.py`: the reference pipeline or a system under test, chosen
by `adapter`) over its project (a chat-only scenario starts empty), its turns are played in order
through `prepare` and `process`, and each turn is judged (`judge.py`, under the run's rules,
`rules.py`) and measured against the scripted agent and the whole history.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, replace
from functools import partial
from pathlib import Path
from typing import Any

from harness import tokens
from harness.evaluation.applicable import lacking
from harness.evaluation.kind import Engine, Item, KindOptions, Step
from harness.evaluation.kinds.conversation.agent import AgentRun, ScriptedAgent
from harness.evaluation.kinds.conversation.judge import judge_turn
from harness.evaluation.kinds.conversation.port import ConversationPort, Conversing
from harness.evaluation.kinds.conversation.reference import ReferenceConversations
from harness.evaluation.kinds.conversation.report import build_report
from harness.evaluation.kinds.conversation.results import TurnResult
from harness.evaluation.kinds.conversation.rules import STRICT, TurnRules
from harness.evaluation.kinds.conversation.system import SystemConversations
from harness.models.conversation import ConversationSuite, ConversationTurn, Scenario, TurnChecks
from harness.models.project import Project
from harness.pipeline.conversation import ContextSettings, search_text
from harness.pipeline.facts import fact_record, stated_facts
from harness.pipeline.project_memory import embedding_text
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RunInfo
from harness.suites.projects.ingest import ingest
from harness.systems.protocol import Capability, SystemInfo

NEEDED = (Capability.BUDGET,)
"""What a port must declare: each turn's context has a token budget."""
INTENT_NOT_JUDGED = "intent (not judged): the protocol has no intent classification"


def adapter(engine: Engine, settings: ContextSettings) -> ConversationPort:
    """The port the turns run through on `engine`: the reference pipeline for the reference
    system, else the system under test."""
    if not engine.system.reference:
        return SystemConversations(engine.system, settings)
    return ReferenceConversations(engine.backend, engine.embedder, settings)


def not_applicable(info: SystemInfo) -> str | None:
    """Why conversation turns cannot run on this system: it does not cap what it returns by tokens."""
    return lacking(
        "Conversation turns", "each get a context capped by a token budget (a search's budget_tokens)", NEEDED, info
    )


def judged(checks: TurnChecks, capabilities: frozenset[Capability]) -> TurnChecks:
    """The checks a turn is judged by on a port with these capabilities: intent only where it classifies."""
    return checks if Capability.INTENT in capabilities else dataclasses.replace(checks, intent=None)


class ConversationKind:
    """A loaded conversation suite, configured for a run."""

    name = "conversation"
    unit = "turns"
    asserted: frozenset[Mode] = frozenset()
    """No mode is the system under test: turn verdicts are scores (the built-in bm25 baselines
    record the turns that fail), so pytest holds turns to their committed baseline."""
    through_systems = True
    """It runs on a system that declares `budget` (`system.py`)."""

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
        self._measuring = threading.Lock()  # a turn's agent run is measured once, whichever mode's worker asks first

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
        return not_applicable(system)

    def execute(self, engine: Engine) -> Iterator[Step[TurnResult]]:
        """Each scenario in each mode a task of the engine's crew, in a namespace of its own (its
        turns in order, as they depend on each other); its project is read here, once, first."""
        port = adapter(engine, self.settings)

        def tasks() -> Iterator[Callable[[], Iterator[Step[TurnResult]]]]:
            for mode in engine.modes:
                for scenario in self.suite.scenarios:
                    self.project(scenario)
                    yield partial(self._scenario, port, engine.backend.name, mode, scenario)

        yield from engine.crew.steps(tasks())

    def _scenario(
        self, port: ConversationPort, backend: str, mode: Mode, scenario: Scenario
    ) -> Iterator[Step[TurnResult]]:
        try:
            conversing = port.open(scenario, self.project(scenario), mode)
        except Exception as exc:  # noqa: BLE001 - every turn of the scenario reports it
            for turn, history in _played(scenario):
                result = self._result(backend, mode, scenario, turn, history)
                yield Step(result.item_id, [result.fail_with(exc)])
            return
        try:
            for turn, history in _played(scenario):
                result = self._result(backend, mode, scenario, turn, history)
                self._play(conversing, port.capabilities, turn, history, result)
                yield Step(result.item_id, [result])
        finally:
            conversing.close()

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
        with self._measuring:
            if key not in self._agent_runs:
                if scenario.project not in self._agents:
                    self._agents[scenario.project] = ScriptedAgent(scenario.project)
                agent = self._agents[scenario.project]
                self._agent_runs[key] = agent.run(spoken, turn.user, turn.checks.answer_terms)
            return self._agent_runs[key]

    def _play(
        self,
        conversing: Conversing,
        capabilities: frozenset[Capability],
        turn: ConversationTurn,
        history: list[tuple[str, str]],
        result: TurnResult,
    ) -> None:
        try:
            started = time.perf_counter()
            context = conversing.prepare(turn.user, history, turn.checks.warm_tokens_max)
            timed = (time.perf_counter() - started) * 1000
            result.latency_ms = conversing.latency_ms if conversing.latency_ms is not None else timed
            stored = conversing.process(turn.user, turn.assistant)
            checks = judged(turn.checks, capabilities)
            effectiveness = "effectiveness" in turn.notes
            verdict = judge_turn(checks, context, conversing.facts_containing, self.rules, effectiveness)
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
        if checks.intent is None and turn.checks.intent is not None:
            result.reasons.append(INTENT_NOT_JUDGED)

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


def _played(scenario: Scenario) -> Iterator[tuple[ConversationTurn, list[tuple[str, str]]]]:
    """Each turn with the (user, assistant) turns before it (the list grows as the next is asked for)."""
    history: list[tuple[str, str]] = []
    for turn in scenario.turns:
        yield turn, history
        history.append((turn.user, turn.assistant))
