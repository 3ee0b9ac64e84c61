"""Code-intelligence tasks as a case kind: the task set's code base is ingested once, loaded into
one index per backend, and every task is answered deterministically in each mode and scored by
surfaced recall, layer by layer (search only, plus identifiers, plus the call graph)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any

from harness.evaluation import teardown
from harness.evaluation.code_task_results import CodeTaskResult
from harness.evaluation.kind import Engine, Item, KindOptions, KindSpec, Report, RunInfo, Step
from harness.metrics.surfaced import surfaced_recall
from harness.models.code_task import CodeTask, TaskSet
from harness.models.project import Project
from harness.pipeline.code_answer import LAYERS, SEARCH_LIMIT, CodeAnswerer
from harness.pipeline.project_memory import ProjectMemory, embedding_text
from harness.pipeline.settings import Mode
from harness.reports.code_tasks_report import build_report
from harness.suites.code_tasks import load_builtin, load_nano_brain
from harness.suites.projects import ingest


class CodeTasksKind:
    """A task set over its code base, ready to run on any engine."""

    name = "code-tasks"
    unit = "tasks"
    asserted: frozenset[Mode] = frozenset()
    """No mode is the system under test: a task's recall is a score, and the built-in tasks name
    symbols of `harness/` that move with it (no code-task baseline is committed)."""

    def __init__(
        self,
        tasks: TaskSet,
        project: Project | None = None,
        fail_under: float | None = None,
        limit: int | None = None,
        embedding_model: str | None = None,
    ):
        self.tasks = tasks
        self.project = (
            project if project is not None else ingest(tasks.codebase, name=tasks.name, exclude=tasks.exclude)
        )
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

    def execute(self, engine: Engine) -> Iterator[Step[CodeTaskResult]]:
        embedder = engine.embedder if any(m.needs_vectors for m in engine.modes) else None
        memory: ProjectMemory | None = None
        try:
            try:
                memory = ProjectMemory.open(engine.backend, f"c{uuid.uuid4().hex[:12]}", embedder)
                memory.load(self.project)
            except Exception as exc:  # noqa: BLE001 - every task then carries the error, and the run goes on
                for task in self.tasks.tasks:
                    yield Step(task.id, [self._result(task, engine, m).fail_with(exc) for m in engine.modes])
                return
            answerer = CodeAnswerer(memory, self.tasks.agent)
            for task in self.tasks.tasks:
                yield Step(task.id, [self._run(answerer, task, engine, mode) for mode in engine.modes])
        finally:
            if memory is not None:
                teardown.drop(memory.index, f"code tasks {self.tasks.name!r} on {engine.backend.name}")

    def _result(self, task: CodeTask, engine: Engine, mode: Mode) -> CodeTaskResult:
        return CodeTaskResult(
            suite=self.tasks.name,
            task_id=task.id,
            category=task.category.value,
            backend=engine.backend.name,
            mode=mode.value,
            question=task.question,
            expected={"symbols": list(task.expect_symbols), "files": list(task.expect_files)},
        )

    def _run(self, answerer: CodeAnswerer, task: CodeTask, engine: Engine, mode: Mode) -> CodeTaskResult:
        result = self._result(task, engine, mode)
        started = time.perf_counter()
        try:
            answer = answerer.answer(task, mode)
        except Exception as exc:  # noqa: BLE001 - the task's error is its result; the run goes on
            return result.fail_with(exc)
        result.latency_ms = (time.perf_counter() - started) * 1000
        for layer in LAYERS:
            names, paths = answer.surfaced(layer)
            scored = surfaced_recall(task.expect_symbols, task.expect_files, names, paths)
            result.layers[layer] = scored.recall
        result.recall = scored.recall
        result.matched, result.missed = list(scored.matched), list(scored.missed)
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
        return [f"recall {result.recall:.3f}: missed {', '.join(result.missed)}"]

    def report(self, results: Sequence[CodeTaskResult], run: RunInfo) -> Report:
        settings = {
            "tasks": PurePath(self.tasks.source).name,
            "limit": self.limit,
            "agent": self.tasks.agent.model_dump(),
            "search_limit": SEARCH_LIMIT,
            "embedding_model": self.embedding_model,
        }
        return build_report(self.tasks, self.project, results, run, self.fail_under, settings)


def build(suites: Sequence[str], common: KindOptions, own: None) -> CodeTasksKind:  # noqa: ARG001 - no options of its own
    """`code-tasks:builtin` or `nano-brain:TASKFILE[:CODEBASE]`."""
    (suite,) = suites
    prefix, _, rest = suite.partition(":")
    tasks = load_builtin(rest) if prefix == "code-tasks" else load_nano_brain(rest)
    return CodeTasksKind.for_run(tasks, common)


def result_from_json(data: Mapping[str, Any]) -> CodeTaskResult:
    return CodeTaskResult.from_json(data)


SPEC = KindSpec(
    name="code-tasks",
    title="Code tasks",
    suite_help="code-tasks:builtin, nano-brain:TASKFILE[:DIR]",
    build=build,
    result=result_from_json,
    builtin="code-tasks:builtin",
    results_key="results",
    prefixes=("code-tasks", "nano-brain"),
    honours=frozenset({"fail_under"}),
)
