"""A scenario that fails records its error as its result, its namespace is dropped, and the run
goes on with the next scenario."""

from __future__ import annotations

from collections.abc import Sequence

from harness.backends.base import IndexDoc, IndexSpec
from harness.backends.embedded import EmbeddedBackend, EmbeddedIndex
from harness.evaluation.kinds.lifecycle.spec import LifecycleKind
from harness.models.scenario import LifecycleSuite
from harness.pipeline.settings import Mode
from tests.lifecycle.helpers import run_kind


class _FailingIndex(EmbeddedIndex):
    """Refuses every upsert (the access phase's first write fails); records its drop."""

    def __init__(self, backend: _FailingBackend, namespace: str, spec: IndexSpec):
        super().__init__(namespace, spec)
        self._backend = backend

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        raise RuntimeError(f"disk full writing {docs[0].id}")

    def drop(self) -> None:
        self._backend.dropped += 1
        super().drop()


class _FailingBackend(EmbeddedBackend):
    """Its first namespace fails; later ones work."""

    def __init__(self) -> None:
        super().__init__()
        self.dropped = 0
        self.created = 0

    def create_index(self, namespace: str, spec: IndexSpec) -> EmbeddedIndex:
        self.created += 1
        return _FailingIndex(self, namespace, spec) if self.created == 1 else super().create_index(namespace, spec)


def test_a_failing_scenario_is_an_error_result_and_the_run_goes_on(builtin_suite, committed_embedder) -> None:
    suite = LifecycleSuite(builtin_suite.name, builtin_suite.scenarios[:2], builtin_suite.max_results)
    backend = _FailingBackend()
    try:
        results, report = run_kind(LifecycleKind(suite, committed_embedder), backend, [Mode.BM25])
    finally:
        backend.close()
    first, second = results
    assert first.error is not None
    assert first.error.startswith("RuntimeError: disk full writing")
    assert not first.backend_lost
    assert backend.dropped == 1
    assert second.error is None
    assert report.data["summary"]["bm25"]["errors"] == 1
    assert report.scores["bm25"].cases[first.scenario].passed is False
