"""Running the lifecycle kind the way the runner does: execute on an engine, then report."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from harness.backends.base import Backend
from harness.evaluation.kind import Engine
from harness.evaluation.kinds.lifecycle.results import LifecycleResult
from harness.evaluation.kinds.lifecycle.spec import LifecycleKind
from harness.evaluation.runner import runnable_modes
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RunInfo

ALL_MODES = (Mode.BM25, Mode.VECTOR, Mode.HYBRID)


def run_kind(
    kind: LifecycleKind, backend: Backend, modes: Sequence[Mode] = ALL_MODES
) -> tuple[list[LifecycleResult], Report]:
    runnable, unsupported = runnable_modes(modes, backend.info())
    engine = Engine(backend, None, tuple(runnable))
    results = [r for step in kind.execute(engine) for r in step.results]
    info = RunInfo(backend.info(), tuple(runnable), unsupported, {}, datetime(2026, 1, 1, tzinfo=UTC), 0.0)
    return results, kind.report(results, info)


def comparable(result: LifecycleResult) -> dict:
    """What must be the same on every engine: every ranking, score, state and merge."""
    data = result.to_json()
    del data["backend"]
    return data
