"""The lifecycle runner over its port: the phases every answering side is driven through, in
order, on the simulated clock, read from a fake port that records each call; the port is closed
however the scenario ends; and what the judge gets from a port that shows no states."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from harness.evaluation.kinds.lifecycle import runner
from harness.evaluation.kinds.lifecycle.port import Observed
from harness.evaluation.kinds.lifecycle.results import LifecycleResult, judge
from harness.models.scenario import Scenario
from harness.pipeline.lifecycle.memory import Seeded
from harness.pipeline.lifecycle.retrieval import Ranked
from harness.pipeline.lifecycle.settings import LifecycleSettings

SCENARIO = Scenario.model_validate(
    {
        "name": "two-queries",
        "memories": [
            {"id": "s1", "label": "signal", "summary": "the vault password", "age_minutes": 30},
            {"id": "n1", "label": "noise", "summary": "vault token rotation schedule"},
        ],
        "queries": [
            {"query": "vault password", "expected_ids": ["s1"]},
            {"query": "token rotation", "expected_ids": ["s1"]},
        ],
    }
)


class Recording:
    """Answers every search with n1 then s1, and records each call with the clock's minute."""

    def __init__(self, fail_on: str | None = None):
        self.calls: list[tuple[Any, ...]] = []
        self.fail_on = fail_on
        self.closed = False

    def _call(self, *call: Any) -> None:
        self.calls.append(call)
        if call[0] == self.fail_on:
            raise RuntimeError(f"{self.fail_on} failed")

    def add(self, seeded: Seeded) -> None:
        self._call("add", tuple((r.id, r.created_at) for r in seeded.records))

    def advance(self, minute: float) -> None:
        self._call("advance", minute)

    def search(self, query: str, top: int) -> tuple[Ranked, ...]:
        self._call("search", query, top)
        return tuple(Ranked(i, 1.0 / n, 0.0, "fake") for n, i in enumerate(["n1", "s1"][:top], 1))

    def record_access(self, ids: Sequence[str]) -> None:
        self._call("access", tuple(ids))

    def consolidate(self) -> None:
        self._call("consolidate")

    def observe(self) -> Observed | None:
        self._call("observe")
        return None

    def close(self) -> None:
        self.closed = True


def test_the_phases_run_in_order_on_the_clock() -> None:
    port = Recording()
    settings = LifecycleSettings(cycles=2, cycle_minutes=60.0, access_top_k=1)
    run = runner.run(SCENARIO, port, 5, settings)
    asked = [("search", "vault password", 5), ("search", "token rotation", 5)]
    assert port.calls == [
        ("advance", 0.0),
        ("add", (("s1", -30.0), ("n1", 0.0))),
        *asked,  # baseline
        ("search", "vault password", 1),
        ("search", "token rotation", 1),
        ("access", ("n1",)),  # each query's top 1, once per query
        ("access", ("n1",)),
        ("advance", 60.0),
        ("consolidate",),
        ("advance", 120.0),
        ("consolidate",),
        *asked,  # post
        ("observe",),
    ]
    assert port.closed
    assert [q.query for q in run.post] == ["vault password", "token rotation"]
    assert run.observed is None


def test_no_cycles_and_no_access_ask_neither() -> None:
    port = Recording()
    runner.run(SCENARIO, port, 5, LifecycleSettings(cycles=0, access_top_k=0))
    names = [c[0] for c in port.calls]
    assert "consolidate" not in names
    assert "access" not in names
    assert names.count("advance") == 1  # the start only


@pytest.mark.parametrize("phase", ["add", "search", "access", "consolidate", "observe"])
def test_the_port_is_closed_however_the_scenario_ends(phase: str) -> None:
    port = Recording(fail_on=phase)
    with pytest.raises(RuntimeError, match=f"{phase} failed"):
        runner.run(SCENARIO, port, 5, LifecycleSettings(cycles=1))
    assert port.closed


def test_a_port_without_states_is_judged_on_its_rankings_alone() -> None:
    """n1 then s1 for each query: s1 second, so MRR 1/2; the shares of memory states unmeasured."""
    run = runner.run(SCENARIO, Recording(), 5, LifecycleSettings(cycles=1))
    result = judge(SCENARIO, run, LifecycleResult(SCENARIO.name, False, "fake", "bm25"), 5)
    assert result.after["mrr"] == pytest.approx(0.5)
    assert result.lifecycle == {"noise_suppression": None, "signal_retention": None, "dedup": None}
    assert result.states == {}
    assert result.cycles == []
