"""The code-task kind end to end on every backend: the same recalls everywhere, per-layer
recall never falling, the report's score sheets and nano-brain's regression rule."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.evaluation.kind import Engine
from harness.evaluation.kinds import KindOptions
from harness.evaluation.kinds.code_tasks.results import CodeTaskResult
from harness.evaluation.kinds.code_tasks.runner import CodeTasksKind
from harness.models.code_task import Baseline, TaskSet
from harness.models.project import Project
from harness.pipeline.settings import Mode
from harness.reports.document import RunInfo
from harness.shards import parse_shard
from harness.suites.code_tasks import load_nano_brain
from tests.backends.contract import B, engine_b, reference_engine
from tests.code_tasks.conftest import TASK_FILE
from tests.projects.embedder import SeededEmbedder


@pytest.fixture(scope="module")
def tasks() -> TaskSet:
    return load_nano_brain(f"{TASK_FILE}")


@pytest.fixture(scope="module")
def kind(tasks: TaskSet, ledger: Project) -> CodeTasksKind:
    return CodeTasksKind(tasks, ledger)


def modes_of(backend: Backend) -> tuple[Mode, ...]:
    return tuple(Mode) if backend.info().vector_engine is not None else (Mode.BM25,)


def run(kind: CodeTasksKind, backend: Backend, modes: Sequence[Mode]) -> list[CodeTaskResult]:
    steps = list(kind.execute(Engine(backend, SeededEmbedder(), tuple(modes))))
    assert [s.item_id for s in steps] == [t.id for t in kind.tasks.tasks]
    return [r for s in steps for r in s.results]


def run_info(backend: Backend, modes: Sequence[Mode]) -> RunInfo:
    return RunInfo(backend.info(), tuple(modes), {}, {}, datetime(2026, 1, 1, tzinfo=UTC), 1.0)


@pytest.fixture(scope="module")
def reference(kind: CodeTasksKind) -> dict[tuple[str, str], CodeTaskResult]:
    engine = registry.connect("embedded")
    try:
        return {(r.task_id, r.mode): r for r in run(kind, engine, tuple(Mode))}
    finally:
        engine.close()


def test_same_results_on_every_backend(any_backend: Backend, kind: CodeTasksKind, reference) -> None:
    """As on the embedded engine (with the backend's BM25 b: RediSearch 2.x's Query Engine has 0.5)."""
    if engine_b(any_backend) != B:
        engine = reference_engine(any_backend)
        try:
            reference = {(r.task_id, r.mode): r for r in run(kind, engine, tuple(Mode))}
        finally:
            engine.close()
    results = run(kind, any_backend, modes_of(any_backend))
    assert [r for r in results if r.error] == []
    for result in results:
        expected = reference[(result.task_id, result.mode)]
        assert (result.layers, result.matched, result.surfaced) == (
            expected.layers,
            expected.matched,
            expected.surfaced,
        ), (result.task_id, result.mode)


def test_layers_are_cumulative(reference) -> None:
    for result in reference.values():
        search, identifiers, graph = (result.layers[layer] for layer in ("search", "identifiers", "graph"))
        assert search <= identifiers <= graph
        assert result.recall == graph


def test_report_scores_per_mode(kind: CodeTasksKind, reference) -> None:
    engine = registry.connect("embedded")
    results = list(reference.values())
    report = kind.report(results, run_info(engine, tuple(Mode)))
    engine.close()
    assert set(report.scores) == {"bm25", "vector", "hybrid"}
    for mode, sheet in report.scores.items():
        rows = [r for r in results if r.mode == mode]
        assert sheet.overall["recall"] == round(sum(r.recall for r in rows) / len(rows) + 1e-12, 3)
        assert set(sheet.cases) == {t.id for t in kind.tasks.tasks}
        assert set(sheet.categories) == {t.category for t in kind.tasks.tasks}
        bench = report.data["summary"][mode]["bench_results"]
        assert [t["id"] for t in bench["tasks"]] == [t.id for t in kind.tasks.tasks]
        frozen = Baseline.model_validate(bench)  # what a freeze writes is what a check reads
        assert frozen.overall == sheet.overall["recall"]
        assert {t.id: t.recall for t in frozen.tasks} == {i: c.score for i, c in sheet.cases.items()}
    assert report.scorecard.columns[:9] == (
        *("backend", "mode", "tasks", "errors", "fixed", "recall"),
        *("search", "+identifiers", "+graph"),
    )
    assert report.stem == "code-tasks-ledger-embedded"


def test_regression_against_the_baseline(kind: CodeTasksKind, reference) -> None:
    engine = registry.connect("embedded")
    bm25 = [r for r in reference.values() if r.mode == "bm25"]
    overall = round(sum(r.recall for r in bm25) / len(bm25), 3)

    def gates(base: float) -> list[str]:
        tasks = kind.tasks.model_copy(update={"baseline": Baseline(version="1", overall=base)})
        return list(CodeTasksKind(tasks, kind.project).report(bm25, run_info(engine, [Mode.BM25])).gates)

    assert gates(overall) == []
    assert gates(overall + 0.001) == []  # within nano-brain's margin
    assert len(gates(overall + 0.002)) == 1
    assert "under the baseline's" in gates(overall + 0.002)[0]
    engine.close()


def test_fail_under_gate(kind: CodeTasksKind, reference) -> None:
    engine = registry.connect("embedded")
    bm25 = [r for r in reference.values() if r.mode == "bm25"]
    overall = round(sum(r.recall for r in bm25) / len(bm25), 3)
    failing = CodeTasksKind(kind.tasks, kind.project, fail_under=1.01)
    assert failing.report(bm25, run_info(engine, [Mode.BM25])).gates == [
        f"bm25: overall recall {overall:.3f} under --fail-under 1.01"
    ]
    passing = CodeTasksKind(kind.tasks, kind.project, fail_under=overall)
    assert passing.report(bm25, run_info(engine, [Mode.BM25])).gates == []
    engine.close()


class _LostBackend:
    """A backend whose server went away before anything was loaded."""

    name = "lost"

    def create_index(self, namespace, spec):  # noqa: ARG002 - the protocol's signature
        return self

    def load(self, docs):  # noqa: ARG002
        raise ConnectionResetError("connection reset by peer")

    def drop(self) -> None:
        raise ConnectionResetError("connection reset by peer")


def test_a_lost_backend_errors_every_task(kind: CodeTasksKind) -> None:
    steps = list(kind.execute(Engine(_LostBackend(), None, (Mode.BM25,))))
    results = [r for s in steps for r in s.results]
    assert len(results) == len(kind.tasks.tasks)
    assert all(r.backend_lost and r.error.startswith("ConnectionResetError") for r in results)


def test_limit_and_shard_select_tasks(tasks: TaskSet) -> None:
    def kept(**options) -> list[str]:
        return [t.id for t in CodeTasksKind.for_run(tasks, KindOptions([Mode.BM25], **options)).tasks.tasks]

    assert kept(limit=3) == [t.id for t in tasks.tasks[:3]]
    halves = [kept(shard=parse_shard(f"{i}/2")) for i in (1, 2)]
    assert sorted(halves[0] + halves[1]) == sorted(t.id for t in tasks.tasks)
    assert not set(halves[0]) & set(halves[1])


class _Unreachable:
    """A backend whose server is gone before the index can be made."""

    name = "gone"

    def create_index(self, namespace, spec):  # noqa: ARG002 - the protocol's signature
        raise ConnectionRefusedError("connection refused")


def test_an_unreachable_backend_errors_every_task(kind: CodeTasksKind) -> None:
    results = [r for s in kind.execute(Engine(_Unreachable(), None, (Mode.BM25,))) for r in s.results]
    assert len(results) == len(kind.tasks.tasks)
    assert all(r.backend_lost for r in results)


def test_a_subset_run_is_compared_with_the_same_tasks_of_the_baseline(tasks: TaskSet) -> None:
    """Overall and per category: a `--limit` or `--shard` run, or a task file grown since the
    baseline, is held to what the baseline scored on the tasks it ran."""
    from harness.evaluation.kinds.code_tasks.report import summarize

    baseline = Baseline.model_validate(
        {
            "version": "1",
            "overall": 0.5,
            "by_category": {"x": 0.5, "y": 0.5},
            "tasks": [
                {"id": "a", "category": "x", "recall": 1.0},
                {"id": "b", "category": "x", "recall": 0.0},
                {"id": "c", "category": "y", "recall": 0.5},
            ],
        }
    )
    subset = tasks.model_copy(update={"baseline": baseline})

    def row(task: str, category: str, recall: float) -> CodeTaskResult:
        return CodeTaskResult("s", task, category, "embedded", "bm25", "q", recall=recall, fixed_recall=recall)

    entry = summarize([row("a", "x", 1.0), row("c", "y", 0.5)], subset)["bm25"]
    assert entry["baseline"]["overall"] == 0.75
    assert entry["baseline"]["by_category"] == {"x": 1.0, "y": 0.5}
    assert entry["baseline"]["regression"] is False
    whole = summarize([row("a", "x", 1.0), row("b", "x", 0.0), row("c", "y", 0.5)], subset)["bm25"]
    assert whole["baseline"]["by_category"] == {"x": 0.5, "y": 0.5}
