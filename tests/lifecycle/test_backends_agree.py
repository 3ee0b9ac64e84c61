"""The built-in scenarios give the same results on every backend, under either lifecycle ruleset:
the same rankings with the same scores, the same states and merges, the same grades. The
embedded run is the reference."""

from __future__ import annotations

import pytest

from harness.backends import registry
from harness.evaluation.kinds.lifecycle.spec import LifecycleKind
from harness.evaluation.runner import runnable_modes
from harness.pipeline.lifecycle.rules import HARNESS_RULES, MNEMONIC_RULES, LifecycleRules
from tests.lifecycle.helpers import ALL_MODES, comparable, run_kind


@pytest.fixture(scope="module", params=[HARNESS_RULES, MNEMONIC_RULES], ids=lambda r: r.name)
def rules(request) -> LifecycleRules:
    return request.param


@pytest.fixture(scope="module")
def reference(builtin_suite, committed_embedder, rules):
    backend = registry.connect("embedded")
    try:
        results, _ = run_kind(LifecycleKind(builtin_suite, committed_embedder, rules=rules), backend)
    finally:
        backend.close()
    return {(r.scenario, r.mode): comparable(r) for r in results}


def test_every_scenario_runs_and_matches_embedded(
    any_backend, builtin_suite, committed_embedder, rules, reference
) -> None:
    results, report = run_kind(LifecycleKind(builtin_suite, committed_embedder, rules=rules), any_backend)
    assert [r.error for r in results] == [None] * len(results)
    modes = {m.value for m in runnable_modes(ALL_MODES, any_backend.info())[0]}
    assert {(r.scenario, r.mode) for r in results} == {(s.name, m) for s in builtin_suite.scenarios for m in modes}
    for result in results:
        assert comparable(result) == reference[(result.scenario, result.mode)], (result.scenario, result.mode)
    assert report.scorecard.rows
