"""What the haystack kind needs of whatever answers its questions: the reference pipeline
(`reference.py`) or a memory system under test (`system.py`). The runner drives either alike.

A haystack goes through four steps, each a place where the two differ and where a failure means
something different: it is read (the reference pipeline analyses the next haystacks' turns ahead
while the current one is indexed), prepared for its questions (the reference pipeline embeds its
turns and questions: a failure there ends the run), ingested into a namespace (a failure is the
haystack's error, recorded on each of its questions), then searched question by question in each
mode and closed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from harness.backends.base import Hit
from harness.models.haystack import Granularity, Haystack, Question
from harness.pipeline.settings import Mode

Rankings = dict[Granularity, list[Hit]]
"""A question's ranking at the run's granularity and, for a turn run, at session level (in that
order): what the runner scores against the question's gold."""


class Searchable(Protocol):
    """One haystack ingested into a namespace of its own."""

    def search(self, question: Question, mode: Mode) -> Rankings:
        """The question's rankings in `mode` (timed whole: the search and what makes its rankings)."""
        ...

    def close(self) -> None:
        """Drop the namespace (called in a `finally`: a failure must not hide the error ending the block)."""
        ...


class Prepared(Protocol):
    """One haystack ready to ingest for the questions it was prepared for."""

    def ingest(self, namespace: str) -> Searchable:
        """The haystack stored under `namespace`; a failure leaves nothing there."""
        ...


class Arrived(Protocol):
    """One haystack as the port read it."""

    @property
    def haystack(self) -> Haystack: ...

    def prepare(self, asked: Sequence[Question]) -> Prepared:
        """What ingesting and asking `asked` needs done first (timed as embedding)."""
        ...


class HaystackPort(Protocol):
    """Whatever answers a dataset's questions."""

    @property
    def embedding_device(self) -> str | None:
        """Where the harness embeds for it (None: it embeds nothing of the harness's)."""
        ...

    def read(self, haystacks: Iterator[Haystack]) -> Iterator[Arrived]:
        """The haystacks in order, each with what the port read with it."""
        ...
