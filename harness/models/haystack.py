"""The haystack-question case kind every public-dataset format yields (so retrieval and scoring
never see a file format).

A haystack is what one index holds at a time: LongMemEval gives one per question, LoCoMo one per
conversation shared by its questions. Documents are turns; sessions are groups of turns.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol


class Granularity(StrEnum):
    """What is indexed and scored: whole sessions, or single turns (sessions then scored by max)."""

    SESSION = "session"
    TURN = "turn"


@dataclass(frozen=True, slots=True)
class Document:
    """One turn of a conversation; `id` is unique within its haystack."""

    id: str
    session_id: str
    text: str
    speaker: str
    date: str | None


@dataclass(frozen=True, slots=True)
class Question:
    """A retrieval query with its gold evidence at both levels.

    `defects` records evidence the file gets wrong (empty, malformed, unresolvable), so reports
    can count them; a question left with no gold at a level is not scored at that level.
    """

    id: str
    category: str
    text: str
    date: str | None
    gold_sessions: frozenset[str]
    gold_turns: frozenset[str]
    abstention: bool
    answer: str
    defects: tuple[str, ...] = ()
    abstention_gold: frozenset[str] = frozenset()
    """The sessions an abstention question names as its answer's: LongMemEval's own scoring (and
    the harness) leaves the question out; Popoto scores it against these."""

    def gold(self, level: Granularity) -> frozenset[str]:
        return self.gold_sessions if level is Granularity.SESSION else self.gold_turns


@dataclass(frozen=True, slots=True)
class Haystack:
    """Documents indexed together and the questions asked of them; `notes` are repairs made on load."""

    id: str
    documents: tuple[Document, ...]
    questions: tuple[Question, ...]
    notes: tuple[str, ...] = ()

    def sessions(self) -> dict[str, list[Document]]:
        """Turns grouped by session, sessions and turns in file order."""
        grouped: dict[str, list[Document]] = {}
        for doc in self.documents:
            grouped.setdefault(doc.session_id, []).append(doc)
        return grouped


@dataclass(frozen=True, slots=True)
class QuestionRef:
    """A question as the cheap first pass sees it: enough to sample without loading haystacks."""

    position: int
    id: str
    category: str


class DatasetReader(Protocol):
    """What each format module provides over one file."""

    def scan(self) -> list[QuestionRef]:
        """Every question's position, id and category, without building haystacks."""

    def count(self) -> int:
        """How many questions the file holds, the whole file checked as `scan` checks it (what a
        full run needs up front: its progress total, and a damaged file refused before any work)."""

    def read(self, selected: frozenset[int] | None = None) -> Iterator[Haystack]:
        """Haystacks in file order holding only the questions at `selected` positions (None: all)."""
