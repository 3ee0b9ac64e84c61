"""Conversation turns through a system under test that declares `budget`: the scenario's project
records are added, each turn's search text (the message, with the request it refers back to, as
on the reference path: `conversation.search_text`) is searched with the budget the turn is judged
at as `budget_tokens` (the context budget, or the turn's own most where smaller), and what comes back, in its order, is the turn's context: the texts it returns
(each record's stored text where it returns none: title, path and text), joined by blank lines,
so its tokens are what the system chose to spend; the records' labels are the harness's
(path and title), and the same turn judge decides.

The facts a message states are added to the system as records, and looked up by searching it.
Intent is the reference pipeline's classification of the message, not something a system
returns: its port does not declare `intent`, so the runner does not judge a turn's intent check
(its reasons say so).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from harness import tokens
from harness.evaluation import teardown
from harness.models.conversation import Scenario
from harness.models.project import Project, ProjectRecord, RecordKind
from harness.pipeline.conversation import Activated, ContextSettings, TurnContext, search_text
from harness.pipeline.facts import fact_record, stated_facts
from harness.pipeline.intent import classify
from harness.pipeline.project_memory import embedding_text
from harness.pipeline.settings import Mode
from harness.systems.bound import BoundSystem
from harness.systems.protocol import Capability, Found, MemorySystem, Query, Record

USER = "conversation"
"""The one user a conversation's records are stored and searched under."""


@dataclass(frozen=True)
class SystemConversations:
    """The system bound to the run's engine. Its contexts carry no intent whatever it declares:
    the protocol returns records, not a classification of the message."""

    system: BoundSystem
    settings: ContextSettings

    @property
    def capabilities(self) -> frozenset[Capability]:
        return self.system.info.capabilities - {Capability.INTENT}

    def open(self, scenario: Scenario, project: Project, mode: Mode) -> SystemConversation:  # noqa: ARG002 - a namespace of its own
        opened = self.system.open(f"h{uuid.uuid4().hex[:12]}")
        try:
            return SystemConversation(opened, project, mode, self.settings)
        except BaseException:
            teardown.close(opened)
            raise


def to_record(record: ProjectRecord) -> Record:
    """A project record as a system stores it: its title, path and text (what the reference path embeds)."""
    attributes: dict[str, str | bool | int | float] = {"kind": record.kind.value, "path": record.path}
    return Record(record.id, embedding_text(record), USER, attributes=attributes)


class SystemConversation:
    """One conversation on a namespace of the system: `prepare`, `process` and `facts_containing`
    as `pipeline.conversation.Conversation` has them."""

    def __init__(self, system: MemorySystem, project: Project, mode: Mode, settings: ContextSettings):
        self.system = system
        self.mode = mode
        self.settings = settings
        self.records = {r.id: r for r in project.records}
        if project.records:
            system.add([to_record(r) for r in project.records])
        self.latency_ms: float | None = None
        """The last `prepare`'s search, as the system answered it."""

    def prepare(
        self, message: str, history: Sequence[tuple[str, str]] = (), judged_at: int | None = None
    ) -> TurnContext:
        """The turn's search carries the budget it is judged at: the context budget, or the turn's
        own most where it asserts a smaller one (a chat turn's 150 tokens)."""
        query = search_text(message, history)
        budget = self.settings.budget if judged_at is None else min(self.settings.budget, judged_at)
        started = time.perf_counter()
        found = self._search(query, budget)
        self.latency_ms = (time.perf_counter() - started) * 1000
        chosen = [Activated(self.records[f.id], f.score) for f in found]
        texts = [f.text if f.text is not None else embedding_text(self.records[f.id]) for f in found]
        text = "\n\n".join(texts)
        return TurnContext(classify(message), query, tuple(chosen), text, tokens.count(text), budget)

    def process(self, user: str, assistant: str) -> tuple[ProjectRecord, ...]:  # noqa: ARG002 - the reply states no user fact
        stored = tuple(fact_record(sentence) for sentence in stated_facts(user))
        for record in stored:
            self.records[record.id] = record
        if stored:
            self.system.add([Record(r.id, r.text, USER, attributes={"kind": r.kind.value}) for r in stored])
        return stored

    def facts_containing(self, term: str) -> list[ProjectRecord]:
        """Stored facts holding `term`, among what the system returns for it."""
        found = self._search(term, None)
        facts = [self.records[f.id] for f in found if self.records[f.id].kind is RecordKind.FACT]
        return [r for r in facts if term.lower() in r.text.lower()]

    def close(self) -> None:
        teardown.close(self.system)

    def _search(self, text: str, budget: int | None) -> list[Found]:
        found = self.system.search(Query(text, USER, limit=self.settings.search_limit, budget_tokens=budget), self.mode)
        if unknown := [f.id for f in found if f.id not in self.records]:
            raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
        return found
