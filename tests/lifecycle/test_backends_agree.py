"""The built-in scenarios give the same results on every backend, under either lifecycle ruleset:
the same rankings with the same scores, the same states and merges, the same grades. The
embedded run is the reference (with the backend's BM25 b: RediSearch 2.x's Query Engine has 0.5)."""

from __future__ import annotations

from functools import cache

import pytest

from harness.backends.embedded import EmbeddedBackend
from harness.evaluation.kinds.lifecycle.spec import LifecycleKind
from harness.evaluation.runner import runnable_modes
from harness.pipeline.lifecycle.rules import HARNESS_RULES, MNEMONIC_RULES, LifecycleRules
from tests.backends.contract import engine_b
from tests.lifecycle.helpers import ALL_MODES, comparable, run_kind


@pytest.fixture(scope="module", params=[HARNESS_RULES, MNEMONIC_RULES], ids=lambda r: r.name)
def rules(request) -> LifecycleRules:
    return request.param


@pytest.fixture(scope="module")
def references(builtin_suite, committed_embedder, rules):
    """The embedded run with a backend's b, once per b."""

    @cache
    def run(b: float) -> dict:
        backend = EmbeddedBackend(bm25_b=b)
        try:
            results, _ = run_kind(LifecycleKind(builtin_suite, committed_embedder, rules=rules), backend)
        finally:
            backend.close()
        return {(r.scenario, r.mode): comparable(r) for r in results}

    return run


def test_every_scenario_runs_and_matches_embedded(
    any_backend, builtin_suite, committed_embedder, rules, references
) -> None:
    reference = references(engine_b(any_backend))
    results, report = run_kind(LifecycleKind(builtin_suite, committed_embedder, rules=rules), any_backend)
    assert [r.error for r in results] == [None] * len(results)
    modes = {m.value for m in runnable_modes(ALL_MODES, any_backend.info())[0]}
    assert {(r.scenario, r.mode) for r in results} == {(s.name, m) for s in builtin_suite.scenarios for m in modes}
    for result in results:
        assert comparable(result) == reference[(result.scenario, result.mode)], (result.scenario, result.mode)
    assert report.scorecard.rows
