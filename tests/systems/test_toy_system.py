"""A toy system registered by entry point runs every kind whose needs it declares, each through the
very runner that runs the reference system (a spy on each kind's runner records which port it
was given), and a kind it cannot serve is reported not applicable, never skipped in silence."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from harness import tokens
from harness.evaluation.kinds.beliefs import runner as belief_runner
from harness.evaluation.kinds.conversation import runner as conversation_runner
from harness.evaluation.kinds.haystack import runner as haystack_runner
from harness.evaluation.kinds.lifecycle import runner as lifecycle_runner
from harness.pipeline.settings import Mode
from harness.systems import registry
from harness.systems.protocol import Capability, Found, Opening, Query, Record, SystemInfo, SystemSpec

_WORD = re.compile(r"[a-z0-9]+")


class ToySystem:
    """Ranks a user's records by how many distinct query words each holds (ties by id), within the
    query's scopes and up to its time; superseded records are never returned; a budget keeps the
    best results whose texts fit in it. Consolidation forgets superseded records; access is noted
    and changes nothing. Small, but every capability it declares is honoured."""

    def __init__(self, opening: Opening) -> None:  # noqa: ARG002 - one namespace in memory
        self.records: dict[str, Record] = {}
        self.now: datetime | None = None
        self.accessed: list[str] = []

    @property
    def info(self) -> SystemInfo:
        declared = {Capability.USERS, Capability.SCOPES, Capability.TIMESTAMPS, Capability.CLOCK}
        declared |= {Capability.CONSOLIDATION, Capability.ACCESS, Capability.BUDGET, Capability.REPLACE}
        return SystemInfo("toy", "1", frozenset(declared | {Capability.SUPERSESSION}), (Mode.BM25,))

    def reset(self) -> None:
        self.records.clear()

    def add(self, records: Sequence[Record]) -> None:
        self.records.update((r.id, r) for r in records)

    def search(self, query: Query, mode: Mode) -> list[Found]:  # noqa: ARG002 - one mode
        words = set(_WORD.findall(query.text.lower()))
        scored = []
        for record in self.records.values():
            if record.user != query.user or record.attributes.get("superseded_by"):
                continue
            if query.scopes and record.scopes and not set(query.scopes) & set(record.scopes):
                continue
            if query.time is not None and record.time is not None and record.time > query.time:
                continue
            if overlap := len(words & set(_WORD.findall(record.text.lower()))):
                scored.append((-overlap, record.id, record.text))
        found, used = [], 0
        for negated, record_id, text in sorted(scored)[: query.limit]:
            cost = tokens.count(text)
            if query.budget_tokens is not None and used + cost > query.budget_tokens:
                continue
            used += cost
            found.append(Found(record_id, float(-negated), text))
        return found

    def advance(self, now: datetime) -> None:
        self.now = now

    def consolidate(self) -> None:
        self.records = {k: r for k, r in self.records.items() if not r.attributes.get("superseded_by")}

    def record_access(self, ids: Sequence[str]) -> None:
        self.accessed.extend(ids)

    def close(self) -> None:
        self.records.clear()


SPEC = SystemSpec("toy", ToySystem, "a toy system registered by entry point")


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """kind -> the ports its runner was handed (`module.Class`, the module within the kind's package)."""
    seen: dict[str, list[str]] = {}

    def spy(kind: str, owner: Any, name: str, port_at: int) -> None:
        original: Callable[..., Any] = getattr(owner, name)

        def recording(*args: Any, **kwargs: Any) -> Any:
            port = type(args[port_at])
            seen.setdefault(kind, []).append(f"{port.__module__.rpartition('.')[2]}.{port.__qualname__}")
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, recording)

    spy("beliefs", belief_runner.SuiteRunner, "__init__", 1)
    spy("haystack", haystack_runner.HaystackKind, "through", 1)
    spy("lifecycle", lifecycle_runner, "run", 1)
    spy("conversation", conversation_runner.ConversationKind, "_scenario", 1)
    point = EntryPoint("toy", f"{__name__}:SPEC", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.GROUP else [])
    return seen


SUITES = ("builtin", "haystack:builtin", "lifecycle:builtin", "conversation:builtin", "code-tasks:builtin")


def test_a_toy_system_runs_every_kind_it_declares_through_the_reference_runner(
    spied: dict[str, list[str]], harness_main: Any, tmp_path: Path
) -> None:
    suites = [arg for suite in SUITES for arg in ("-s", suite)]
    run = harness_main(
        "run", "--system", "reference", "--system", "toy", *suites, "-m", "bm25", "--limit", "2", cwd=tmp_path
    )
    assert run.returncode in (0, 1), run.stderr[-2000:]  # 1: the toy's own failures fail the run's gate

    assert {kind: sorted(set(ports)) for kind, ports in spied.items()} == {
        "beliefs": ["reference.ReferencePort", "system.SystemPort"],
        "haystack": ["reference.ReferenceHaystacks", "system.SystemHaystacks"],
        "lifecycle": ["reference.ReferencePort", "system.SystemPort"],
        "conversation": ["reference.ReferenceConversations", "system.SystemConversations"],
    }

    reports = [json.loads(p.read_text()) for p in (tmp_path / "reports").glob("*-latest.json")]
    toy = {r["kind"]: r for r in reports if r["system"]["name"] == "toy"}
    assert sorted(toy) == ["beliefs", "code-tasks", "conversation", "haystack", "lifecycle"]
    for kind in ("beliefs", "haystack", "lifecycle", "conversation"):
        assert toy[kind]["not_applicable"] is None, kind
        assert toy[kind]["scores"]["bm25"]["cases"], f"{kind}: the toy answered no item"
    assert "a code graph" in toy["code-tasks"]["not_applicable"]
