"""What the conversation kind needs of whatever answers its turns: the reference pipeline
(`reference.py`: `pipeline.conversation.Conversation` over project memory) or a memory system
under test (`system.py`). The runner plays a scenario's turns on either alike.

A scenario opens a conversation over its project in one mode; each turn is `prepare`d (the
context the turn gets), then `process`ed (the facts its message states stored), and the judge
looks stored facts up through `facts_containing`. What the reference pipeline gives beyond the
protocol (its intent classification) is a capability of its port, and judged only where declared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from harness.models.conversation import Scenario
from harness.models.project import Project, ProjectRecord
from harness.pipeline.conversation import TurnContext
from harness.pipeline.settings import Mode
from harness.systems.protocol import Capability


class Conversing(Protocol):
    """One conversation in one mode, over its scenario's project."""

    @property
    def latency_ms(self) -> float | None:
        """The last `prepare`'s search, where the port times it apart from building the context
        (None: the runner times `prepare` whole)."""
        ...

    def prepare(
        self, message: str, history: Sequence[tuple[str, str]] = (), judged_at: int | None = None
    ) -> TurnContext:
        """The context for `message`, given the (user, assistant) turns before it; `judged_at`: the
        most tokens the turn's context is judged at, where it asserts one (a system's search
        carries it, so it is never judged against a budget it was not told; the reference
        pipeline sizes its context by the message's intent, as it always has)."""
        ...

    def process(self, user: str, assistant: str) -> tuple[ProjectRecord, ...]:
        """Store each fact the user's message states; returns the records stored."""
        ...

    def facts_containing(self, term: str) -> list[ProjectRecord]:
        """Stored facts whose text holds `term`."""
        ...

    def close(self) -> None:
        """Drop what the conversation stored (called in a `finally`)."""
        ...


class ConversationPort(Protocol):
    """Whatever answers conversation turns on one engine."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What its contexts carry beyond ranked records (`intent`: the message's classification)."""
        ...

    def open(self, scenario: Scenario, project: Project, mode: Mode) -> Conversing:
        """A conversation over `project` (a chat-only scenario's is empty); a failure leaves nothing stored."""
        ...
