"""The built-in conversation suite: its shape (three original projects, 45+ turns over the five
categories), and its run on every selected backend giving the same turns, contexts and verdicts
as the embedded engine; through the one runner, its reports are written."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.evaluation.kinds import KindOptions
from harness.evaluation.kinds.conversation.results import TurnResult
from harness.evaluation.kinds.conversation.runner import ConversationKind
from harness.evaluation.runner import RunRequest, run_and_report
from harness.models.conversation import Category
from harness.pipeline.settings import Mode
from harness.shards import Shard
from harness.suites.resolve import load_conversation
from tests.backends.contract import B, engine_b, reference_engine
from tests.conversation.helpers import run_kind
from tests.pipeline.test_invariants import HashingEmbedder

SUITE = load_conversation("builtin")


def test_suite_shape() -> None:
    assert SUITE.turns >= 45
    assert SUITE.dropped == ()
    categories = Counter(t.category for s in SUITE.scenarios for t in s.turns)
    assert set(categories) == set(Category)
    assert all(count >= 5 for count in categories.values())
    suffixes = {s.name: {p.suffix for p in s.project.rglob("*") if p.is_file()} for s in SUITE.scenarios}
    assert {".py", ".ts", ".tsx"} <= suffixes["harbor-log"]  # a code base in two languages
    assert {".md", ".epub"} <= suffixes["salt-road"]  # a prose work, with an EPUB
    assert suffixes["library-app-plans"] == {".md"}  # a folder of planning documents
    for scenario in SUITE.scenarios:
        assert sum(1 for t in scenario.turns if t.checks.fact_terms) >= 1  # a fact stored, recalled later


def _comparable(results: list[TurnResult]) -> list[tuple]:
    return [
        (r.item_id, r.intent, [x["id"] for x in r.records], r.context, r.tokens, r.passed, r.reasons, r.facts_stored)
        for r in results
    ]


@pytest.fixture(scope="module")
def reference() -> list[TurnResult]:
    engine = registry.connect("embedded")
    try:
        results, _ = run_kind(engine, SUITE)
    finally:
        engine.close()
    return results


def test_same_turns_on_every_backend(any_backend: Backend, reference: list[TurnResult]) -> None:
    """As on the embedded engine (with the backend's BM25 b: RediSearch 2.x's Query Engine has 0.5)."""
    if engine_b(any_backend) != B:
        engine = reference_engine(any_backend)
        try:
            reference, _ = run_kind(engine, SUITE)
        finally:
            engine.close()
    results, report = run_kind(any_backend, SUITE)
    assert [r.error for r in results] == [None] * SUITE.turns
    assert _comparable(results) == _comparable(reference)
    assert report.data["summary"]["bm25"]["turns"] == SUITE.turns


def test_every_turn_gets_a_context_within_budget(reference: list[TurnResult]) -> None:
    assert all(r.error is None for r in reference)
    assert all(r.tokens <= 600 for r in reference)
    chats = [r for r in reference if r.intent == "chat"]
    assert chats
    assert all(r.records == [] or {x["kind"] for x in r.records} == {"fact"} for r in chats)


class RecordingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        self.seen: set[str] = set()

    def embed(self, texts):
        self.seen.update(texts)
        return super().embed(texts)


def test_vector_modes_embed_only_what_texts_announced() -> None:
    engine = registry.connect("embedded")
    embedder = RecordingEmbedder()
    try:
        results, report = run_kind(engine, SUITE, (Mode.VECTOR, Mode.HYBRID), embedder=embedder)
    finally:
        engine.close()
    assert [r.error for r in results] == [None] * (2 * SUITE.turns)
    assert set(report.data["summary"]) == {"vector", "hybrid"}
    assert embedder.seen <= set(ConversationKind(SUITE).texts())  # embedded ahead, no model at run time


def test_through_the_one_runner(tmp_path: Path) -> None:
    engine = registry.connect("embedded")
    try:
        finished = run_and_report(ConversationKind(SUITE), engine, None, RunRequest((Mode.BM25,), tmp_path))
    finally:
        engine.close()
    assert finished.outcome.done == SUITE.turns
    written = json.loads((tmp_path / "conversation-embedded-latest.json").read_text())
    assert written["suite"] == "conversation:builtin"
    assert len(written["turns"]) == SUITE.turns
    assert (tmp_path / "conversation-embedded-latest.md").read_text().startswith("# Conversation report")
    assert finished.report.gates == []  # no --fail-under, no gate
    assert finished.verdict(0.0).exit_code == 0


def test_limit_and_shard_select_whole_conversations() -> None:
    limited = ConversationKind.for_run(SUITE, KindOptions([Mode.BM25], limit=2))
    assert [len(s.turns) for s in limited.suite.scenarios] == [2, 2, 2]
    assert limited.total([Mode.BM25, Mode.HYBRID]) == 12
    names = {s.name for s in SUITE.scenarios}
    parts = [
        ConversationKind.for_run(SUITE, KindOptions([Mode.BM25], shard=Shard(i, 2))).suite.scenarios for i in (1, 2)
    ]
    assert sorted(s.name for part in parts for s in part) == sorted(names)  # each conversation in one shard
    assert all(
        len(s.turns) == len(next(x for x in SUITE.scenarios if x.name == s.name).turns) for p in parts for s in p
    )
