"""Belief suites through a system under test: the suite's memories ingested as records, each
case's query searched, and the found ids judged by the harness's own judge.

What the system returns is the relevant tier, except records the suite marks pinned (where the
system declares `pinned`) and open questions, which go to their own tiers; the persona prelude is
the reference pipeline's own construction, so a system never has one. A failed case whose
expectations need semantics the system does not declare (user or scope isolation, supersession,
pinned facts, replacing a record, a prelude) says so in its reasons, after the judge's.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from harness import tokens
from harness.evaluation import teardown
from harness.evaluation.judge import judge
from harness.evaluation.results import CaseResult, asked, context_record
from harness.metrics import classify, drift_score
from harness.metrics.measures import SUITE_MEASURES
from harness.models import UNIVERSAL_SCOPE, Memory, MemoryType, SessionCase, StaticCase, Suite, Turn
from harness.models.cases import Budget, Expect
from harness.pipeline import Context, Mode
from harness.pipeline.context import Retrieved
from harness.pipeline.ruleset import CaseKind, MutationTiming, Ruleset, ruleset
from harness.systems.bound import BoundSystem
from harness.systems.protocol import Capability, MemorySystem, Query, Record

DEFAULT_LIMIT = 20
"""Results asked for when neither the case nor the ruleset sets a budget (PrecisionMemBench's limit)."""


def record_text(memory: Memory) -> str:
    """What a system is given to store: the memory's content, else its name and aliases."""
    if memory.content:
        return memory.content
    return ". ".join(part for part in (memory.name.replace("_", " "), *memory.aliases) if part)


def to_record(memory: Memory) -> Record:
    attributes: dict[str, str | bool | int | float] = {"type": memory.type.value, "status": memory.status.value}
    attributes |= {"pinned": memory.pinned} if memory.pinned else {}
    attributes |= {"superseded_by": memory.superseded_by} if memory.superseded_by else {}
    attributes |= {"subtype": memory.subtype} if memory.subtype else {}
    return Record(memory.id, record_text(memory), memory.user, memory.scopes, memory.created_at, attributes)


def needs(suite: Suite, expect: Expect, user: str) -> list[Capability | str]:
    """The semantics a case's expectations rest on beyond ranking text against text."""
    memories = suite.corpus.memories
    found: list[Capability | str] = []
    if len({m.user for m in memories}) > 1:
        found.append(Capability.USERS)
    if len({s for m in memories if m.user == user for s in m.scopes if s != UNIVERSAL_SCOPE}) > 1:
        found.append(Capability.SCOPES)
    if any(not m.injectable for m in memories):
        found.append(Capability.SUPERSESSION)
    if expect.pinned is not None or any(m.pinned for m in memories if m.user == user):
        found.append(Capability.PINNED)
    if expect.prelude is not None:
        found.append("a persona prelude (the reference pipeline's own construction)")
    return found


class SystemSuiteRunner:
    """One suite on one system: static cases share one namespace, each session case has its own."""

    def __init__(self, system: BoundSystem, backend: str, suite: Suite):
        self.system = system
        self.backend = backend
        self.suite = suite
        self.rules: Ruleset = ruleset(suite.ruleset)
        self._memories = {m.id: m for m in suite.corpus.memories}
        self._static: MemorySystem | None = None
        self._open: list[MemorySystem] = []

    def _opened(self) -> MemorySystem:
        opened = self.system.open(f"h{uuid.uuid4().hex[:12]}")
        self._open.append(opened)
        opened.add([to_record(m) for m in self.suite.corpus.memories])
        return opened

    def close(self) -> None:
        """Close every namespace this runner opened (each tried); the first failure is raised after."""
        failed: Exception | None = None
        for opened in self._open:
            try:
                opened.close()
            except Exception as exc:  # noqa: BLE001 - the others are still closed
                failed = failed or exc
        self._open.clear()
        self._static = None
        if failed is not None:
            raise failed

    def run_static(self, case: StaticCase, mode: Mode) -> CaseResult:
        result = self._result("static", case.id, case.user, mode, case.query, case.scopes, case.budget, case.expect)
        result.category = case.category
        try:
            if self._static is None:
                self._static = self._opened()
            self._search_and_judge(self._static, result, case.expect, mode, CaseKind.STATIC, [])
        except Exception as exc:  # noqa: BLE001 - recorded as the case's error, run continues
            result.fail_with(exc)
        return result

    def run_session(self, position: int, modes: Sequence[Mode]) -> list[CaseResult]:
        case = self.suite.session_cases[position]
        lacking: list[Capability | str] = []
        try:
            opened = self._opened()
            for earlier in self.suite.session_cases[:position]:
                for turn in earlier.turns:
                    self._mutate(opened, turn, lacking)
        except Exception as exc:  # noqa: BLE001 - recorded as every turn's error, run continues
            return [self._turn(case, turn, mode).fail_with(exc) for turn in case.turns for mode in modes]
        after = self.rules.mutations is MutationTiming.AFTER_CHECKS
        results: list[CaseResult] = []
        for turn in case.turns:
            if not after and (error := self._try_mutate(opened, turn, lacking)):
                results += [self._turn(case, turn, mode).fail_with(error) for mode in modes]
                continue
            turn_results = []
            for mode in modes:
                result = self._turn(case, turn, mode)
                try:
                    context = self._search_and_judge(opened, result, turn.expect, mode, CaseKind.SESSION, lacking)
                    result.drift = self._drift(turn, context)
                except Exception as exc:  # noqa: BLE001 - recorded as the turn's error, run continues
                    result.fail_with(exc)
                turn_results.append(result)
            if after and (error := self._try_mutate(opened, turn, lacking)):
                turn_results = [r.fail_with(error) for r in turn_results]
            results += turn_results
        return results

    def _try_mutate(self, opened: MemorySystem, turn: Turn, lacking: list[Capability | str]) -> Exception | None:
        """Applies the turn's create/update; the error, if any, is the turn's (the run goes on)."""
        try:
            self._mutate(opened, turn, lacking)
        except Exception as exc:  # noqa: BLE001 - returned as the turn's error, run continues
            return exc
        return None

    def _mutate(self, opened: MemorySystem, turn: Turn, lacking: list[Capability | str]) -> None:
        """A turn's new memory is added; an alias update replaces the memory where the system
        declares `replace`, and is otherwise noted for the case's reasons."""
        if turn.create is not None:
            self._memories[turn.create.id] = turn.create
            opened.add([to_record(turn.create)])
        if turn.update is not None:
            updated = self._memories[turn.update.memory_id].with_aliases(tuple(turn.update.add_aliases))
            self._memories[updated.id] = updated
            if opened.info.supports(Capability.REPLACE):
                opened.add([to_record(updated)])
            elif Capability.REPLACE not in lacking:
                lacking.append(Capability.REPLACE)

    def _turn(self, case: SessionCase, turn: Turn, mode: Mode) -> CaseResult:
        result = self._result("session", case.id, case.user, mode, turn.message, turn.scopes, turn.budget, turn.expect)
        result.turn, result.turn_label = turn.index, turn.label.value
        return result

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
    ) -> CaseResult:
        return asked(self.suite, self.backend, kind, case_id, user, mode.value, query, scopes, budget, expect)

    def _context(self, opened: MemorySystem, result: CaseResult, mode: Mode) -> Context:
        limit = result.max_beliefs
        if limit is None:
            limit = self.rules.default_max_beliefs or DEFAULT_LIMIT
        query = Query(result.query, result.user, tuple(result.scopes), limit)
        found = opened.search(query, mode) if limit > 0 and result.query.strip() else []
        if unknown := [h.id for h in found if h.id not in self._memories]:
            raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
        pinned_tier = opened.info.supports(Capability.PINNED)
        pinned: list[str] = []
        questions: list[str] = []
        relevant: list[Retrieved] = []
        for hit in found:
            memory = self._memories[hit.id]
            if memory.type is MemoryType.OPEN_QUESTION:
                questions.append(hit.id)
            elif memory.pinned and pinned_tier:
                pinned.append(hit.id)
            else:
                relevant.append(Retrieved(hit.id, len(relevant) + 1, hit.score or 0.0, (), None, "system"))
        text = " ".join(h.text or record_text(self._memories[h.id]) for h in found)
        return Context(None, tuple(pinned), tuple(relevant), tuple(questions), (), tokens.count(text))

    def _search_and_judge(
        self,
        opened: MemorySystem,
        result: CaseResult,
        expect: Expect,
        mode: Mode,
        kind: CaseKind,
        lacking: list[Capability | str],
    ) -> Context:
        start = time.perf_counter()
        context = self._context(opened, result, mode)
        result.latency_ms = (time.perf_counter() - start) * 1000.0
        result.retrieved = context_record(context)
        result.reasons += judge(
            expect,
            context,
            union=self.rules.checks_union(kind),
            case_sensitive_prelude=self.rules.prelude_case_sensitive,
        )
        result.passed = not result.reasons
        if not result.passed:
            info = opened.info
            missing = [
                n for n in [*needs(self.suite, expect, result.user), *lacking] if not _declared(info.capabilities, n)
            ]
            result.reasons += [
                f"needs {_named(n)}, which system {info.name!r} does not declare" for n in dict.fromkeys(missing)
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

    def _drift(self, turn: Turn, context: Context) -> float:
        banned = set(turn.expect.noise.must_not_surface) if turn.expect.noise else set()
        topics = set(turn.topics)

        def is_noise(memory_id: str) -> bool:
            memory = self._memories.get(memory_id)
            memory_topics = set(memory.topics) if memory else set()
            return memory_id in banned or bool(topics and memory_topics and topics.isdisjoint(memory_topics))

        surfaced = list(context.relevant_ids)
        if self.rules.checks_union(CaseKind.SESSION):
            surfaced += [m for m in context.pinned if m in banned]
        noise = sum(1 for memory_id in surfaced if is_noise(memory_id))
        return drift_score(noise, len(context.relevant), len(context.pinned))


def _declared(capabilities: frozenset[Capability], need: Capability | str) -> bool:
    return isinstance(need, Capability) and need in capabilities


def _named(need: Capability | str) -> str:
    return f"{need.value!r}" if isinstance(need, Capability) else need


def steps(
    suites: Sequence[Suite], modes: Sequence[Mode], runs: Any, system: BoundSystem, backend: str
) -> Iterator[tuple[str, list[CaseResult]]]:
    """As `beliefs.steps`, through `system`: (case id, its results) per progress step."""
    for suite in suites:
        runner = SystemSuiteRunner(system, backend, suite)
        try:
            for mode in modes:
                for case in filter(lambda c: runs(c.id), suite.static_cases):
                    yield case.id, [runner.run_static(case, mode)]
            for position, session in enumerate(suite.session_cases):
                if runs(session.id):
                    yield session.id, runner.run_session(position, modes)
        finally:
            teardown.close(runner)
