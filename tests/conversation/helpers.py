"""Running a conversation suite directly through its case kind (as the one runner will)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime

from harness.backends.base import Backend
from harness.evaluation.kind import Engine
from harness.evaluation.kinds.conversation.results import TurnResult
from harness.evaluation.kinds.conversation.runner import ConversationKind
from harness.models.conversation import ConversationSuite
from harness.pipeline.conversation import ContextSettings
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RunInfo


def run_kind(
    backend: Backend,
    suite: ConversationSuite,
    modes: Sequence[Mode] = (Mode.BM25,),
    settings: ContextSettings | None = None,
    embedder=None,
    fail_under: float | None = None,
) -> tuple[list[TurnResult], Report]:
    kind = ConversationKind(suite, settings, fail_under)
    started = time.perf_counter()
    results: list[TurnResult] = []
    for step in kind.execute(Engine(backend, embedder, tuple(modes))):
        results.extend(step.results)
    info = RunInfo(backend.info(), tuple(modes), {}, {}, datetime.now(UTC), time.perf_counter() - started)
    return results, kind.report(results, info)
