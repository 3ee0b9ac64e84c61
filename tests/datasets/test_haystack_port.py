"""The haystack runner over its port (`evaluation/kinds/haystack/port.py`): whatever answers, its
rankings are scored against each question's gold, a failure to ingest is each asked question's
error, a failure to prepare ends the run, and every namespace it ingested is closed."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.backends.base import Hit
from harness.evaluation.kinds.haystack.runner import HaystackKind
from harness.models.haystack import Granularity, Haystack, Question
from harness.pipeline.settings import Mode
from harness.suites.datasets import open_selection
from tests.datasets.builders import FILLER, longmemeval_record


@dataclass
class FakePort:
    """Ranks a fixed session first for every question; `fail` names the step that raises."""

    first: str
    fail: str | None = None
    namespaces: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)
    prepared: list[list[str]] = field(default_factory=list)

    @property
    def embedding_device(self) -> str | None:
        return "fake-device"

    def read(self, haystacks: Iterator[Haystack]) -> Iterator[_Arrived]:
        return (_Arrived(self, h) for h in haystacks)


@dataclass
class _Arrived:
    port: FakePort
    haystack: Haystack

    def prepare(self, asked: Sequence[Question]) -> _Arrived:
        if self.port.fail == "prepare":
            raise RuntimeError("the encoder is gone")
        self.port.prepared.append([q.id for q in asked])
        return self

    def ingest(self, namespace: str) -> _Searchable:
        if self.port.fail == "ingest":
            raise RuntimeError("the engine refused the haystack")
        self.port.namespaces.append(namespace)
        return _Searchable(self.port, namespace, sorted(self.haystack.sessions()))


@dataclass
class _Searchable:
    port: FakePort
    namespace: str
    sessions: list[str]

    def search(self, question: Question, mode: Mode) -> dict[Granularity, list[Hit]]:  # noqa: ARG002
        others = [s for s in self.sessions if s != self.port.first]
        ranking = [self.port.first, *others]
        return {Granularity.SESSION: [Hit(s, 1.0 / rank) for rank, s in enumerate(ranking, 1)]}

    def close(self) -> None:
        self.port.closed.append(self.namespace)


@pytest.fixture
def kind(tmp_path: Path) -> HaystackKind:
    records = [
        longmemeval_record("q1", "Which walnut recipe?", {"s1": FILLER, "s2": FILLER}, ["s2"]),
        longmemeval_record("q2_abs", "Nothing to find?", {"s1": FILLER}, []),
    ]
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(records))
    return HaystackKind(open_selection("longmemeval-s", data), Granularity.SESSION)


def test_the_ports_rankings_are_scored_against_the_gold(kind: HaystackKind) -> None:
    port = FakePort(first="s2")
    steps = list(kind.through(port, (Mode.BM25, Mode.VECTOR)))
    assert [s.item_id for s in steps] == ["q1", "q2_abs"]
    results = steps[0].results
    assert [r.mode for r in results] == [Mode.BM25, Mode.VECTOR]
    assert all(r.levels[0].metrics["recall_any@1"] == 1.0 for r in results)
    assert steps[1].results == []  # the abstention question is not asked, only counted
    assert [r.id for r in kind.skipped] == ["q2_abs"]
    assert port.prepared == [["q1"]]
    assert port.closed == port.namespaces  # the one haystack asked was dropped
    assert kind.embedding_device == "fake-device"


def test_a_gold_session_ranked_second_misses_at_one(kind: HaystackKind) -> None:
    (step, _) = list(kind.through(FakePort(first="s1"), (Mode.BM25,)))
    (result,) = step.results
    assert result.levels[0].metrics["recall_any@1"] == 0.0
    assert kind.failures(result) == [result.id + ": session: ranked below the top: gold s2 not in the top 1 (ranked first: s1, s2)"]


def test_a_failed_ingest_is_each_asked_questions_error(kind: HaystackKind) -> None:
    port = FakePort(first="s2", fail="ingest")
    (step, _) = list(kind.through(port, (Mode.BM25,)))
    (result,) = step.results
    assert result.error == "RuntimeError: the engine refused the haystack"
    assert port.closed == []
    assert kind.haystacks == []


def test_a_failed_prepare_ends_the_run(kind: HaystackKind) -> None:
    with pytest.raises(RuntimeError, match="the encoder is gone"):
        list(kind.through(FakePort(first="s2", fail="prepare"), (Mode.BM25,)))
