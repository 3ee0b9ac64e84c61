"""The belief runner's contract with its port, driven by a fake port: the runner judges whatever
context the port builds, asks the port's declared capabilities (never which adapter it holds),
replays earlier sessions into a fresh namespace, and closes every namespace it opened."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.judged_rules import Rule, rule_of
from harness.evaluation.kinds.beliefs.port import Construction, Need
from harness.evaluation.kinds.beliefs.reference import CAPABILITIES
from harness.evaluation.kinds.beliefs.runner import SuiteRunner
from harness.models import Memory, Suite, Turn
from harness.pipeline import Context, Mode
from harness.pipeline.context import Retrieved
from harness.pipeline.memory_layer import Request
from harness.pipeline.ruleset import CaseKind, Ruleset
from harness.suites import load_suite
from harness.systems.protocol import Capability

MEMORIES = [
    {"id": "m-db", "user": "u", "type": "entity", "name": "orders_db", "scopes": ["domain:s"], "topics": ["db"]},
    {"id": "m-ci", "user": "u", "type": "entity", "name": "ci", "scopes": ["domain:s"], "topics": ["ci"]},
    {"id": "m-pin", "user": "u", "type": "preference", "name": "strict", "scopes": ["domain:s"], "pinned": True},
    {"id": "m-other", "user": "v", "type": "entity", "name": "orders_db", "scopes": ["domain:s"]},
]
STATIC = [
    {"id": "pinned", "scopes": ["domain:s"], "query": "orders", "expect": {"pinned": {"must_include": ["m-pin"]}}},
    {
        "id": "prelude",
        "user": "v",
        "scopes": ["domain:s"],
        "query": "orders",
        "expect": {"prelude": {"non_empty": True}},
    },
]
SESSIONS = [
    {
        "id": "first",
        "turns": [
            {
                "index": 0,
                "label": "establishes_topic",
                "scopes": ["domain:s"],
                "message": "orders",
                "update": {"memory_id": "m-db", "add_aliases": ["pg"]},
                "expect": {"relevant": {"should_only_include": ["m-db"]}},
            }
        ],
    },
    {
        "id": "second",
        "turns": [
            {
                "index": 0,
                "label": "drift",
                "scopes": ["domain:s"],
                "message": "pipeline",
                "topics": ["ci"],
                "expect": {"relevant": {"should_only_include": ["m-ci"]}},
            }
        ],
    },
]


@dataclass
class Namespace:
    """Answers every request with the relevant memories it was told to, in order."""

    answer: Sequence[str]
    loaded: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    asked: list[tuple[str, Mode]] = field(default_factory=list)
    closed: bool = False
    topics_of: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def load(self, memories: Sequence[Memory]) -> None:
        self.loaded += [m.id for m in memories]
        self.topics_of |= {m.id: m.topics for m in memories}

    def mutate(self, turn: Turn) -> None:
        self.writes.append(f"turn {turn.index} of {turn.message!r}")

    def context(self, request: Request, mode: Mode) -> Context:
        self.asked.append((request.query, mode))
        relevant = tuple(Retrieved(i, rank, 1.0, (), None, "fake") for rank, i in enumerate(self.answer, 1))
        return Context(None, (), relevant, (), (), 0)

    def topics(self, memory_id: str) -> tuple[str, ...]:
        return self.topics_of[memory_id]

    def close(self) -> None:
        self.closed = True


@dataclass
class FakePort:
    capabilities: frozenset[Need]
    answer: Sequence[str] = ()
    name: str = "fake"
    opened: list[Namespace] = field(default_factory=list)

    def open(self, suite: Suite, rules: Ruleset, kind: CaseKind) -> Namespace:  # noqa: ARG002 - one fake answer for any suite
        self.opened.append(Namespace(self.answer))
        return self.opened[-1]


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    files: dict[str, Any] = {
        "corpus.json": {"default_user": "u", "memories": MEMORIES},
        "static.json": {"cases": STATIC},
        "session.json": {"cases": SESSIONS},
    }
    for name, data in files.items():
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    return load_suite(str(tmp_path))


def test_a_failed_case_names_each_need_the_port_does_not_declare(suite: Suite) -> None:
    port = FakePort(frozenset({Capability.USERS}))
    result = SuiteRunner(port, "engine", suite).run_static(suite.static_cases[0], Mode.BM25)
    assert not result.passed
    assert result.reasons[-1] == "needs 'pinned', which system 'fake' does not declare"
    assert not any("'users'" in reason for reason in result.reasons)  # two users, but declared: never named


def test_a_port_declaring_what_the_reference_declares_gets_no_such_reason(suite: Suite) -> None:
    port = FakePort(CAPABILITIES, name="another")
    result = SuiteRunner(port, "engine", suite).run_static(suite.static_cases[0], Mode.BM25)
    assert not result.passed  # the judge still fails it: nothing pinned came back
    assert result.reasons
    assert not any(reason.startswith("needs ") for reason in result.reasons)


def test_the_prelude_is_named_as_the_reference_pipelines_own_construction(suite: Suite) -> None:
    result = SuiteRunner(FakePort(frozenset(Capability)), "engine", suite).run_static(suite.static_cases[1], Mode.BM25)
    assert result.reasons[-1] == f"needs {Construction.PRELUDE.value}, which system 'fake' does not declare"


def test_sessions_replay_earlier_writes_in_a_namespace_of_their_own_and_all_are_closed(suite: Suite) -> None:
    port = FakePort(frozenset({Capability.PINNED}), answer=["m-db"])
    runner = SuiteRunner(port, "engine", suite)
    first = runner.run_session(0, [Mode.BM25, Mode.VECTOR])
    second = runner.run_session(1, [Mode.BM25])
    runner.close()
    assert [(r.case_id, r.mode, r.passed) for r in first] == [("first", "bm25", True), ("first", "vector", True)]
    assert len(port.opened) == 2
    assert all(ns.loaded == ["m-db", "m-ci", "m-pin", "m-other"] for ns in port.opened)
    assert port.opened[0].writes == ["turn 0 of 'orders'"]
    assert port.opened[0].asked == [("orders", Mode.BM25), ("orders", Mode.VECTOR)]  # the turn, in each mode
    # the first session's turn replayed, then its own, before it is asked
    assert port.opened[1].writes == ["turn 0 of 'orders'", "turn 0 of 'pipeline'"]
    assert port.opened[1].asked == [("pipeline", Mode.BM25)]
    (turn,) = second
    assert turn.drift == 1.0  # m-db's topic is not the turn's: the one surfaced memory is noise
    # m-ci missing, m-db not expected (same user, in scope: nothing but relevance); then the one
    # undeclared need a failed check rests on: the replayed alias update, which m-ci's retrieval may
    # rest on. Two users, but no other user's record surfaced: `users` is no hint here
    assert [rule_of(reason) for reason in turn.reasons[:2]] == [Rule.MISSING, Rule.UNEXPECTED]
    assert turn.reasons[2:] == ["needs 'replace', which system 'fake' does not declare"]
    assert all(ns.closed for ns in port.opened)
