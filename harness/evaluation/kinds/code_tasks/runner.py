"""Code-intelligence tasks: the one runner. The task set's code base is ingested once, stored
through the kind's port (`port.py`: the reference pipeline, chosen by `adapter`) once per engine,
and every task is answered deterministically in each mode, under the set's code-task ruleset, and
scored by surfaced recall: the task's own tools (fixed recall), with the agent pass (recall), and
layer by layer (search only, plus identifiers, plus the call graph)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePath

from harness.errors import HarnessError
from harness.evaluation.applicable import beyond_protocol
from harness.evaluation.judged_rules import Rule
from harness.evaluation.kind import Engine, Item, KindOptions, Step
from harness.evaluation.kinds.code_tasks.port import Answering, CodePort
from harness.evaluation.kinds.code_tasks.reference import ReferenceCode
from harness.evaluation.kinds.code_tasks.report import build_report
from harness.evaluation.kinds.code_tasks.results import CodeTaskResult
from harness.metrics.surfaced import SurfacedRecall, sourced_recall
from harness.models.code_task import CodeTask, TaskSet
from harness.models.project import Project, RecordKind
from harness.pipeline.code_answer import LAYERS, SEARCH_LIMIT, Hit
from harness.pipeline.code_rules import code_rules
from harness.pipeline.project_memory import embedding_text
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RunInfo
from harness.suites.projects import ingest
from harness.systems.protocol import Capability, SystemInfo

NEEDED = (Capability.CODE_GRAPH,)
"""What a port must declare: a task is answered by its tools, which walk the code graph."""


def adapter(engine: Engine, kind: CodeTasksKind) -> CodePort:
    """The port the tasks run through on `engine`: the reference pipeline for the reference
    system; none for another system (the protocol has no operation that serves `NEEDED`: the
    run's `not_applicable` keeps the kind from one)."""
    if not engine.system.reference:
        raise ValueError(NOT_APPLICABLE)
    embedder = engine.embedder if any(m.needs_vectors for m in engine.modes) else None
    what = f"code tasks {kind.tasks.name!r} on {engine.backend.name}"
    return ReferenceCode(engine.backend, embedder, kind.tasks.agent, kind.rules, what)


NOT_APPLICABLE = beyond_protocol(
    "Code tasks",
    "a code graph (symbols looked up by name, with their call edges and routes, for the tasks' tools to walk)",
    "ranked records for a text query",
)
"""Why tasks cannot run on a system under test: no protocol operation serves `NEEDED`."""


class CodeTasksKind:
    """A task set over its code base, ready to run on any engine."""

    name = "code-tasks"
    unit = "tasks"
    asserted: frozenset[Mode] = frozenset()
    """No mode is the system under test: a task's recall is a score, and the built-in tasks name
    symbols of `harness/` that move with it (no code-task baseline is committed)."""
    through_systems = True
    """It asks a system under test what it declares (`not_applicable_to`): none has a port."""

    def __init__(
        self,
        tasks: TaskSet,
        project: Project | None = None,
        fail_under: float | None = None,
        limit: int | None = None,
        embedding_model: str | None = None,
    ):
        self.tasks = tasks
        self.rules = code_rules(tasks.rules)
        self.project = project if project is not None else _ingest_code(tasks)
        self.fail_under = fail_under
        self.limit = limit
        self.embedding_model = embedding_model

    @classmethod
    def for_run(cls, tasks: TaskSet, options: KindOptions) -> CodeTasksKind:
        """The kind for `harness run`: the first `--limit` tasks of the `--shard`'s share."""
        kept = options.shard.keep(tasks.tasks) if options.shard is not None else tasks.tasks
        needs_vectors = any(m.needs_vectors for m in options.modes)
        return cls(
            tasks.model_copy(update={"tasks": kept[: options.limit]}),
            fail_under=options.fail_under,
            limit=options.limit,
            embedding_model=options.embedding_model if needs_vectors else None,
        )

    @property
    def baseline_suite(self) -> str:
        return f"code-tasks-{self.tasks.name}"

    def total(self, modes: Sequence[Mode]) -> int | None:  # noqa: ARG002 - one step per task, all modes in it
        return len(self.tasks.tasks)

    def prepare(self) -> None:
        """Nothing: the runner's embedder is all it needs."""

    def inputs(self) -> list[Path]:
        return [Path(self.tasks.source)]

    def item_ids(self) -> list[str]:
        return [t.id for t in self.tasks.tasks]

    def texts(self) -> Iterable[str]:
        yield from (embedding_text(r) for r in self.project.records)
        for task in self.tasks.tasks:
            yield task.question
            if task.input.query is not None:
                yield task.input.query

    def not_applicable_to(self, system: SystemInfo) -> str | None:  # noqa: ARG002 - no system has one
        return NOT_APPLICABLE

    def execute(self, engine: Engine) -> Iterator[Step[CodeTaskResult]]:
        try:
            answering = adapter(engine, self).open(self.project)
        except Exception as exc:  # noqa: BLE001 - every task then carries the error, and the run goes on
            for task in self.tasks.tasks:
                yield Step(task.id, [self._result(task, engine, m).fail_with(exc) for m in engine.modes])
            return
        try:
            for task in self.tasks.tasks:
                yield Step(task.id, [self._run(answering, task, engine, mode) for mode in engine.modes])
        finally:
            answering.close()

    def _result(self, task: CodeTask, engine: Engine, mode: Mode) -> CodeTaskResult:
        return CodeTaskResult(
            suite=self.tasks.name,
            task_id=task.id,
            category=task.category,
            backend=engine.backend.name,
            mode=mode.value,
            question=task.question,
            expected={"symbols": list(task.expect_symbols), "files": list(task.expect_files)},
        )

    def _run(self, answering: Answering, task: CodeTask, engine: Engine, mode: Mode) -> CodeTaskResult:
        result = self._result(task, engine, mode)
        started = time.perf_counter()
        try:
            answer = answering.answer(task, mode)
        except Exception as exc:  # noqa: BLE001 - the task's error is its result; the run goes on
            return result.fail_with(exc)
        result.latency_ms = (time.perf_counter() - started) * 1000
        for layer in LAYERS:
            result.layers[layer] = _score(task, answer.upto(layer)).recall
        scored = _score(task, list(answer.hits))
        result.recall = scored.recall
        result.fixed_recall = _score(task, answer.fixed()).recall
        result.matched, result.missed = list(scored.matched), list(scored.missed)
        result.matched_by = dict(scored.by)
        result.identifiers = list(answer.identifiers)
        result.surfaced = {layer: [r.id for r in records] for layer, records in answer.layers.items()}
        result.externals = list(answer.externals)
        return result

    def items(self) -> list[Item]:
        """A task per item, all in one group: the code base is loaded once per backend and mode."""
        return [Item(t.id, self.tasks.name) for t in self.tasks.tasks]

    def only(self, group: str) -> CodeTasksKind:  # noqa: ARG002 - one group: the whole task set
        return self

    def failures(self, result: CodeTaskResult) -> list[str]:
        """A correct answer surfaces every expected symbol and file: each one missed is a reason."""
        if result.recall is None or result.recall >= 1.0:
            return []
        return [Rule.MISSING.reason("answer", f"{', '.join(result.missed)} not surfaced (recall {result.recall:.3f})")]

    def report(self, results: Sequence[CodeTaskResult], run: RunInfo) -> Report:
        settings = {
            "tasks": PurePath(self.tasks.source).name,
            "rules": self.rules.to_json(),
            "limit": self.limit,
            "agent": self.tasks.agent.model_dump(),
            "search_limit": SEARCH_LIMIT,
            "embedding_model": self.embedding_model,
        }
        return build_report(self.tasks, self.project, results, run, self.fail_under, settings)


def _score(task: CodeTask, hits: Sequence[Hit]) -> SurfacedRecall:
    """Recall over the hits, each match credited to the first hit that surfaced it."""
    names = [(name, _source(hit)) for hit in hits for name in hit.names]
    paths = [(path, _source(hit)) for hit in hits for path in hit.paths]
    return sourced_recall(task.expect_symbols, task.expect_files, names, paths)


def _source(hit: Hit) -> str:
    where = hit.source if hit.record is not None else f"{hit.source} (outside the project)"
    return f"{where} [{hit.tool}]"


def _ingest_code(tasks: TaskSet) -> Project:
    """The task set's code base as records; one that holds no code the parsers read would score
    every task 0 (and call that a regression), so it is an error."""
    project = ingest(tasks.codebase, name=tasks.name, exclude=tasks.exclude)
    if not any(r.kind is RecordKind.SYMBOL for r in project.records):
        raise HarnessError(
            f"{tasks.source}: the code base {tasks.codebase} holds no code the harness parses "
            "(Go, TypeScript, JavaScript, Python): give it as nano-brain:TASKFILE:CODEBASE"
        )
    return project
