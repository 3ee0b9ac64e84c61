"""The one belief runner: static snapshots and session turns over one corpus, through any port.

Static cases share one namespace (they never write). Each session case gets its own namespace,
replays the mutations of the session cases before it (the fixtures' sessions share state), then
plays its turns in order, retrieving in every mode; the suite's ruleset says whether a turn's
mutation comes before its retrieval (built-in) or after its checks (Tenure). Every context is
judged here, whoever built it: a failed case resting on semantics the port does not declare says
so in its reasons, after the judge's.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from harness.backends.base import Backend
from harness.evaluation import teardown
from harness.evaluation.crew import Crew
from harness.evaluation.judge import judge
from harness.evaluation.kind import Step
from harness.evaluation.kinds.beliefs.explain import Asked, Explainer
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.port import BeliefPort, Beliefs, Need
from harness.evaluation.kinds.beliefs.reference import ReferencePort
from harness.evaluation.kinds.beliefs.results import CaseResult, asked, context_record
from harness.metrics import classify, drift_score
from harness.metrics.measures import SUITE_MEASURES
from harness.models import Budget, Expect, Memory, SessionCase, StaticCase, Suite, Turn
from harness.pipeline import Context, Mode
from harness.pipeline.memory_layer import Request, TextEmbedder
from harness.pipeline.ruleset import CaseKind, MutationTiming, Ruleset, ruleset
from harness.systems.protocol import Capability


def _named(need: Need) -> str:
    return f"{need.value!r}" if isinstance(need, Capability) else need.value


def _records(suite: Suite) -> dict[str, Memory]:
    """Every record a case may name: the corpus and the memories session turns create."""
    created = [t.create for c in suite.session_cases for t in c.turns if t.create is not None]
    return {m.id: m for m in (*suite.corpus.memories, *created)}


class SuiteRunner:
    def __init__(self, port: BeliefPort, backend: str, suite: Suite, *, rules: Ruleset | None = None):
        """`backend`: the engine's name, as the rows record it; `rules`: judge by these instead of
        the suite's own ruleset (to compare rulesets)."""
        self.port = port
        self.backend = backend
        self.suite = suite
        self.rules = rules or ruleset(suite.ruleset)
        self._explainer = Explainer(_records(suite), self.rules)
        self._static: Beliefs | None = None
        self._open: list[Beliefs] = []
        self._opening = threading.Lock()  # static cases run at once open their shared namespace once

    def _opened(self, kind: CaseKind) -> Beliefs:
        beliefs = self.port.open(self.suite, self.rules, kind)
        self._open.append(beliefs)
        beliefs.load(self.suite.corpus.memories)
        return beliefs

    def close(self) -> None:
        """Close every namespace this runner opened (each tried); the first failure is raised after."""
        failed: Exception | None = None
        for beliefs in self._open:
            try:
                beliefs.close()
            except Exception as exc:  # noqa: BLE001 - the others are still closed
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
            with self._opening:
                if self._static is None:
                    self._static = self._opened(CaseKind.STATIC)
            self._retrieve_and_judge(self._static, result, case.expect, mode, CaseKind.STATIC, [], ())
        except Exception as exc:  # noqa: BLE001 - recorded as the case's error, run continues
            result.fail_with(exc)
        return result

    # -- sessions -------------------------------------------------------------------------------

    def run_session(self, position: int, modes: Sequence[Mode]) -> list[CaseResult]:
        """All turns of session case `position`, in every mode; earlier sessions' writes replayed."""
        case = self.suite.session_cases[position]
        written: list[Need] = []
        results: list[CaseResult] = []
        try:
            beliefs = self._opened(CaseKind.SESSION)
            for earlier in self.suite.session_cases[:position]:
                for turn in earlier.turns:
                    self._mutate(beliefs, turn, written)
        except Exception as exc:  # noqa: BLE001 - recorded as every turn's error, run continues
            return [self._session_error(case, turn, mode, exc) for turn in case.turns for mode in modes]
        after = self.rules.mutations is MutationTiming.AFTER_CHECKS
        for turn in case.turns:
            if not after and (error := self._try_mutate(beliefs, turn, written)):
                results += [self._session_error(case, turn, mode, error) for mode in modes]
                continue
            turn_results = []
            for mode in modes:
                result = self._turn_result(case, turn, mode)
                try:
                    context = self._retrieve_and_judge(
                        beliefs, result, turn.expect, mode, CaseKind.SESSION, written, turn.topics
                    )
                    result.drift = self._drift(beliefs, turn, context)
                except Exception as exc:  # noqa: BLE001 - recorded as the turn's error, run continues
                    result.fail_with(exc)
                turn_results.append(result)
            if after and (error := self._try_mutate(beliefs, turn, written)):
                turn_results = [r.fail_with(error) for r in turn_results]
            results += turn_results
        return results

    def _try_mutate(self, beliefs: Beliefs, turn: Turn, written: list[Need]) -> Exception | None:
        """Applies the turn's create/update; the error, if any, is the turn's (the run goes on)."""
        try:
            self._mutate(beliefs, turn, written)
        except Exception as exc:  # noqa: BLE001 - returned as the turn's error, run continues
            return exc
        return None

    @staticmethod
    def _mutate(beliefs: Beliefs, turn: Turn, written: list[Need]) -> None:
        """The turn's writes; an alias update rests on replacing a stored memory from then on."""
        beliefs.mutate(turn)
        if turn.update is not None and Capability.REPLACE not in written:
            written.append(Capability.REPLACE)

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
        return asked(self.suite, self.backend, kind, case_id, user, mode.value, query, scopes, budget, expect, **where)

    def _session_error(self, case: SessionCase, turn: Turn, mode: Mode, exc: Exception) -> CaseResult:
        return self._turn_result(case, turn, mode).fail_with(exc)

    def _drift(self, beliefs: Beliefs, turn: Turn, context: Context) -> float:
        """Noise: surfaced memories the turn bans, or whose topics miss the turn's topics; where the
        rules check sessions over relevant and pinned, a banned pinned memory is noise too."""
        banned = set(turn.expect.noise.must_not_surface) if turn.expect.noise else set()
        topics = set(turn.topics)

        def is_noise(memory_id: str) -> bool:
            memory_topics = set(beliefs.topics(memory_id))
            return memory_id in banned or bool(topics and memory_topics and topics.isdisjoint(memory_topics))

        surfaced = list(context.relevant_ids)
        if self.rules.checks_union(CaseKind.SESSION):
            surfaced += [m for m in context.pinned if m in banned]
        noise = sum(1 for memory_id in surfaced if is_noise(memory_id))
        return drift_score(noise, len(context.relevant), len(context.pinned))

    # -- shared ---------------------------------------------------------------------------------

    def _retrieve_and_judge(
        self,
        beliefs: Beliefs,
        result: CaseResult,
        expect: Expect,
        mode: Mode,
        kind: CaseKind,
        written: Sequence[Need],
        topics: Sequence[str],
    ) -> Context:
        """Retrieve, judge and explain: each failed check names its rule, and a capability the
        port does not declare is a hint only where a failed check rests on it (`written`: a
        session's alias updates, which an expected record's retrieval may rest on)."""
        request = Request(
            result.user,
            tuple(result.scopes),
            result.query,
            result.max_beliefs,
            result.max_pinned_facts,
            result.max_questions,
        )
        start = time.perf_counter()
        context = beliefs.context(request, mode)
        result.latency_ms = (time.perf_counter() - start) * 1000.0
        result.retrieved = context_record(context)
        breaches = judge(
            expect,
            context,
            union=self.rules.checks_union(kind),
            case_sensitive_prelude=self.rules.prelude_case_sensitive,
        )
        explained = self._explainer.explain(breaches, Asked(result.user, tuple(result.scopes), tuple(topics)))
        result.reasons += explained.reasons
        result.passed = not result.reasons
        if not result.passed:
            missed = any(b.missing for b in breaches)
            lacking = [n for n in [*explained.needs, *(written if missed else ())] if n not in self.port.capabilities]
            result.reasons += [
                f"needs {_named(n)}, which system {self.port.name!r} does not declare" for n in dict.fromkeys(lacking)
            ]
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


def steps(plan: Plan, port: BeliefPort, backend: str, crew: Crew | None = None) -> Iterator[Step[CaseResult]]:
    """One step per static case in a mode and per session case, as they finish: an interrupted run
    keeps what it yielded. Each is a task of the crew: the static cases search the suite's one
    shared namespace (which they never write), each session case plays in a namespace of its own."""
    crew = crew or Crew()
    for suite in plan.limited():
        runner = SuiteRunner(port, backend, suite)
        statics = [(case, mode) for mode in plan.modes for case in suite.static_cases if plan.runs(case.id)]
        sessions = [(position, case) for position, case in enumerate(suite.session_cases) if plan.runs(case.id)]
        tasks = [partial(_static, runner, case, mode) for case, mode in statics]
        tasks += [partial(_session, runner, position, case.id, plan.modes) for position, case in sessions]
        try:
            yield from crew.steps(tasks)
        finally:
            teardown.close(runner)


def _static(runner: SuiteRunner, case: StaticCase, mode: Mode) -> Iterator[Step[CaseResult]]:
    yield Step(case.id, [runner.run_static(case, mode)])


def _session(runner: SuiteRunner, position: int, case_id: str, modes: Sequence[Mode]) -> Iterator[Step[CaseResult]]:
    yield Step(case_id, runner.run_session(position, modes))


def execute(plan: Plan, backend: Backend, embedder: TextEmbedder | None) -> list[CaseResult]:
    """Every result of the plan on one backend through the reference pipeline (tests and the
    benchmark; runs go through `BeliefKind`)."""
    port = ReferencePort(backend, plan.settings, embedder)
    return [result for step in steps(plan, port, backend.name) for result in step.results]
