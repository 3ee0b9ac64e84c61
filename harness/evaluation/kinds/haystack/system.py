"""The haystack port over a memory system under test: each haystack's turns added to a namespace
of the system as records, each question searched there (`DEPTH` results) under the one haystack
user. A session ranks by its best turn, as the reference pipeline's turn rankings do; a system
that gives no scores is ranked by its order (1 / rank)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from harness.backends.base import Hit
from harness.evaluation import teardown
from harness.evaluation.kinds.haystack.dataset_rules import bare_turns
from harness.evaluation.kinds.haystack.port import Rankings
from harness.metrics.popoto import PopotoRules
from harness.models.haystack import Document, Granularity, Haystack, Question
from harness.pipeline.haystack import DEPTH, by_session, turn_text
from harness.pipeline.settings import Mode
from harness.systems.bound import BoundSystem
from harness.systems.protocol import MemorySystem, Query, Record

HAYSTACK_USER = "haystack"
"""The one user a haystack's turns are stored and searched under, on a system under test."""


def turn_record(doc: Document, text: str | None = None) -> Record:
    """A turn as a system stores it: the text the reference system indexes (else `text`), its
    session and date."""
    attributes = {"session_id": doc.session_id} | ({"date": doc.date} if doc.date else {})
    return Record(doc.id, turn_text(doc) if text is None else text, HAYSTACK_USER, attributes=attributes)


def turn_records(documents: Sequence[Document], rules: PopotoRules | None) -> list[Record]:
    """A haystack's turns as the rules store them: the harness's text, or Popoto's bare text."""
    if rules is None:
        return [turn_record(d) for d in documents]
    return [turn_record(d, text) for d, text in bare_turns(documents)]


@dataclass(frozen=True)
class SystemHaystacks:
    """The system bound to the run's engine; `granularity`: the rankings its questions are scored
    by; `rules`: Popoto's, where its records and depth are the run's."""

    system: BoundSystem
    granularity: Granularity
    rules: PopotoRules | None = None

    @property
    def embedding_device(self) -> str | None:
        return None

    def read(self, haystacks: Iterator[Haystack]) -> Iterator[_Read]:
        return (_Read(self, haystack) for haystack in haystacks)


@dataclass(frozen=True)
class _Read:
    port: SystemHaystacks
    haystack: Haystack

    def prepare(self, asked: Sequence[Question]) -> _Read:  # noqa: ARG002 - the system embeds on its own
        return self

    def ingest(self, namespace: str) -> _Stored:
        opened = self.port.system.open(namespace)
        try:
            opened.add(turn_records(self.haystack.documents, self.port.rules))
        except BaseException:
            teardown.close(opened)
            raise
        session_of = {d.id: d.session_id for d in self.haystack.documents}
        depth = DEPTH if self.port.rules is None else self.port.rules.depth
        return _Stored(opened, session_of, self.port.granularity, depth)


@dataclass(frozen=True)
class _Stored:
    opened: MemorySystem
    session_of: Mapping[str, str]
    granularity: Granularity
    depth: int

    def search(self, question: Question, mode: Mode) -> Rankings:
        found = self.opened.search(Query(question.text, HAYSTACK_USER, limit=self.depth), mode)
        if unknown := [f.id for f in found if f.id not in self.session_of]:
            raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
        scored = all(f.score is not None for f in found)
        turns = [
            Hit(f.id, f.score if scored and f.score is not None else 1.0 / rank) for rank, f in enumerate(found, 1)
        ]
        rankings = {Granularity.SESSION: by_session(turns, self.session_of, self.depth)}
        return {Granularity.TURN: turns, **rankings} if self.granularity is Granularity.TURN else rankings

    def close(self) -> None:
        teardown.close(self.opened)
