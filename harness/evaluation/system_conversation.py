"""Conversation turns through a system under test that declares `budget`: the scenario's project
records are added, each turn's search text (the message, with the request it refers back to, as
on the reference path: `conversation.search_text`) is searched with the context budget as
`budget_tokens`, and what comes back, in its order, is the turn's context: the texts it returns
(each record's stored text where it returns none: title, path and text), joined by blank lines,
so its tokens are what the system chose to spend; the records' labels are the harness's
(path and title), and the same turn judge decides.

The facts a message states are added to the system as records, and looked up by searching it.
Intent is the reference pipeline's classification of the message, not something a system
returns: a turn's intent check is not judged for a system (its reasons say so).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from harness import tokens
from harness.models.conversation import TurnChecks
from harness.models.project import Project, ProjectRecord, RecordKind
from harness.pipeline.conversation import Activated, ContextSettings, TurnContext, search_text
from harness.pipeline.facts import fact_record, stated_facts
from harness.pipeline.intent import classify
from harness.pipeline.project_memory import embedding_text
from harness.pipeline.settings import Mode
from harness.systems.protocol import Capability, Found, MemorySystem, Query, Record, SystemInfo

USER = "conversation"
"""The one user a conversation's records are stored and searched under."""
NEEDED = (Capability.BUDGET,)
INTENT_NOT_JUDGED = "intent (not judged): the protocol has no intent classification"


def not_applicable(info: SystemInfo) -> str | None:
    """Why conversation turns cannot run on this system: it does not cap what it returns by tokens."""
    missing = info.missing(*NEEDED)
    if not missing:
        return None
    lacks = ", ".join(c.value for c in missing)
    return f"the conversation kind needs {lacks} (each turn's context has a token budget), which system {info.name!r} does not declare"


def to_record(record: ProjectRecord) -> Record:
    """A project record as a system stores it: its title, path and text (what the reference path embeds)."""
    attributes: dict[str, str | bool | int | float] = {"kind": record.kind.value, "path": record.path}
    return Record(record.id, embedding_text(record), USER, attributes=attributes)


def judged(checks: TurnChecks) -> TurnChecks:
    """The checks a system's turn is judged by: all but intent."""
    return dataclasses.replace(checks, intent=None)


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

    def prepare(self, message: str, history: Sequence[tuple[str, str]] = ()) -> TurnContext:
        query = search_text(message, history)
        started = time.perf_counter()
        found = self._search(query, self.settings.budget)
        self.latency_ms = (time.perf_counter() - started) * 1000
        chosen = [Activated(self.records[f.id], f.score) for f in found]
        texts = [f.text if f.text is not None else embedding_text(self.records[f.id]) for f in found]
        text = "\n\n".join(texts)
        return TurnContext(classify(message), query, tuple(chosen), text, tokens.count(text), self.settings.budget)

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

    def _search(self, text: str, budget: int | None) -> list[Found]:
        found = self.system.search(Query(text, USER, limit=self.settings.search_limit, budget_tokens=budget), self.mode)
        if unknown := [f.id for f in found if f.id not in self.records]:
            raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
        return found
