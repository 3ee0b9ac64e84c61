"""Conversation turns over project memory: `prepare` builds one turn's context, `process` stores
what the user stated.

`prepare(message, history)` classifies the message (`intent.classify`) and picks records:
- chat: only stored facts the message matches (usually nothing);
- overview: the project overview, then the top-level folders and files, then matching facts;
- specific: matching facts, then the project records the search ranks best. A message that
  refers back ("it", "that function", `REFERRING`) is searched together with the previous
  request in the history, so the referent is found; any other message is searched alone, so the
  context follows a change of topic. Sections, symbols, routes, file summaries and the overview
  are ranked; the best `keep` come in, and after them those scoring at least `floor` times the
  best, up to `max_records`. Each brings what it stands for: a file its best two parts (its own
  text is a summary of them), a heading with no text of its own the sections under it. Folders
  come in only when the message names one while asking about a folder or directory.
Records are rendered as `[kind] label` (a fact as `[fact]`) and their text, each cut to `record_tokens` and all of
them to `budget` tokens of cl100k_base (`harness.tokens`); the count is of the rendered text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from harness import tokens
from harness.models.conversation import Intent
from harness.models.project import ProjectRecord, RecordKind
from harness.pipeline.facts import fact_record, stated_facts
from harness.pipeline.intent import classify
from harness.pipeline.project_memory import ProjectMemory, code_terms
from harness.pipeline.settings import Mode

_GENERIC = (
    r"function|method|class|module|file|folder|chapter|story|section|document|doc|decision|issue|"
    r"sprint|part|one|component|route|endpoint|character|person|thing|code|test|tests|risk|scene"
)
REFERRING = re.compile(
    rf"\b(it|its|it's|they|them|their|he|she|him|his|her|there|(that|this|those|these|the same) ({_GENERIC})s?)\b",
    re.IGNORECASE,
)
"""Words that point back to what the conversation was about."""


def search_text(message: str, history: Sequence[tuple[str, str]] = ()) -> str:
    """What a turn searches: the message, preceded by the last request of the history when the
    message is a specific one that refers back."""
    if classify(message) is Intent.SPECIFIC and REFERRING.search(message):
        previous = next((user for user, _ in reversed(history) if classify(user) is not Intent.CHAT), None)
        if previous is not None:
            return f"{previous}\n{message}"
    return message


PARTS = (RecordKind.SECTION, RecordKind.SYMBOL, RecordKind.ROUTE)
"""Records that hold a piece of a file's own text."""
RANKED = (*PARTS, RecordKind.FILE, RecordKind.OVERVIEW)
"""What a specific message is searched in: text, not folder listings or facts (searched apart)."""
BARE_TOKENS = 16
"""A section with less text than this below its heading stands for the sections under it."""
FOLDER_WORDS = frozenset({"folder", "folders", "directory", "directories", "dir"})


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """How big a turn's context may grow."""

    budget: int = 600
    """Most cl100k_base tokens in one turn's rendered context."""
    record_tokens: int = 200
    """Most tokens of one record's text, so several records fit."""
    overview_tokens: int = 320
    """Most tokens of the project overview in an overview context."""
    outline_tokens: int = 24
    """Most tokens of each top-level folder or file in an overview."""
    max_records: int = 6
    """Most records the search ranks in (what they stand for comes with them)."""
    keep: int = 3
    """The best this many records come in whatever their score."""
    floor: float = 0.5
    """Beyond those, records scoring under this share of the best one stay out."""
    facts: int = 3
    search_limit: int = 30


@dataclass(frozen=True, slots=True)
class Activated:
    record: ProjectRecord
    score: float | None
    """Search score (None for records an overview always shows)."""

    @property
    def label(self) -> str:
        """Path and title (a fact's title is its sentence), as label checks read them."""
        record = self.record
        if record.kind is RecordKind.FACT:
            return record.title
        if not record.path or record.title == record.path.rsplit("/", 1)[-1]:
            return record.path or record.title
        return f"{record.path} > {record.title}"


@dataclass(frozen=True, slots=True)
class TurnContext:
    intent: Intent
    query: str
    """The text searched (the message, or the message with the request it refers back to)."""
    records: tuple[Activated, ...]
    text: str
    tokens: int
    budget: int


class Conversation:
    """One conversation's memory over a loaded project: the project's records and the facts stated."""

    def __init__(self, memory: ProjectMemory, mode: Mode = Mode.BM25, settings: ContextSettings | None = None):
        self.memory = memory
        self.mode = mode
        self.settings = settings or ContextSettings()

    def prepare(self, message: str, history: Sequence[tuple[str, str]] = ()) -> TurnContext:
        """The context for `message`, given the (user, assistant) turns before it."""
        intent = classify(message)
        query = search_text(message, history)
        chosen = self._facts(query)
        if intent is Intent.OVERVIEW:
            chosen = self._outline() + chosen
        elif intent is Intent.SPECIFIC:
            chosen = chosen + self._search(query)
        return self._render(intent, query, chosen)

    def process(self, user: str, assistant: str) -> tuple[ProjectRecord, ...]:  # noqa: ARG002 - the reply states no user fact
        """Store each fact the user's message states; returns the records stored."""
        stored = tuple(fact_record(sentence) for sentence in stated_facts(user))
        for record in stored:
            self.memory.put(record)
        return stored

    def facts_containing(self, term: str) -> list[ProjectRecord]:
        """Stored facts whose text holds `term` (case-insensitive), found through the engine."""
        found = self.memory.search(term, Mode.BM25, self.settings.search_limit, kinds=[RecordKind.FACT])
        return [f.record for f in found if term.lower() in f.record.text.lower()]

    def _facts(self, query: str) -> list[Activated]:
        """Facts sharing at least two content words with the query (all of them, for a one-word query)."""
        wanted = set(code_terms(query, drop_stopwords=True))
        need = min(2, len(wanted))
        found = self.memory.search(query, self.mode, self.settings.facts, kinds=[RecordKind.FACT])
        return [
            Activated(f.record, f.score)
            for f in found
            if need and len(wanted & set(code_terms(f.record.text, drop_stopwords=True))) >= need
        ]

    def _outline(self) -> list[Activated]:
        overview = self.memory.fetch(kinds=[RecordKind.OVERVIEW])
        top = [
            r
            for r in self.memory.fetch(kinds=[RecordKind.FOLDER, RecordKind.FILE])
            if r.path and "/" not in r.path.strip("/")
        ]
        top.sort(key=lambda r: (r.kind is not RecordKind.FOLDER, r.path))
        return [Activated(r, None) for r in overview + top]

    def _search(self, query: str) -> list[Activated]:
        """The best content records for the query, each with what it stands for: a file with its
        best parts (its own text is a summary of them), a bare heading with the sections under it.
        Folders come in only when named."""
        found = self.memory.search(query, self.mode, self.settings.search_limit, kinds=RANKED)
        chosen: dict[str, Activated] = {a.record.id: a for a in self._named_folders(query)}
        if not found:
            return list(chosen.values())
        best = found[0].score
        ranked = 0
        for hit in found:
            if ranked >= self.settings.max_records:
                break
            if ranked >= self.settings.keep and hit.score < self.settings.floor * best:
                break
            if hit.record.id in chosen:
                continue  # already in as part of an earlier hit: takes no place of its own
            ranked += 1
            self._add(chosen, Activated(hit.record, hit.score), query)
        return list(chosen.values())

    def _add(self, chosen: dict[str, Activated], item: Activated, query: str) -> None:
        """The record and, recursively, what it stands for."""
        if item.record.id in chosen:
            return
        chosen[item.record.id] = item
        for part in self._stands_for(query, item.record):
            self._add(chosen, part, query)

    def _stands_for(self, query: str, record: ProjectRecord) -> list[Activated]:
        """A file's two best parts for the query; a heading with no text of its own, the sections
        right under it in document order."""
        if record.kind is RecordKind.FILE:
            parts = self.memory.search(query, self.mode, 2, kinds=PARTS, path=record.path)
            return [Activated(p.record, p.score) for p in parts]
        if record.kind is RecordKind.SECTION and _bare(record):
            under = self.memory.fetch(kinds=[RecordKind.SECTION], path=record.path)
            return [Activated(r, None) for r in under if r.parent == record.id]
        return []

    def _named_folders(self, query: str) -> list[Activated]:
        """Folders the message names while asking about a folder ("what is in the docs folder?")."""
        words = set(code_terms(query))
        if words.isdisjoint(FOLDER_WORDS):
            return []
        folders = self.memory.fetch(kinds=[RecordKind.FOLDER])
        return [Activated(f, None) for f in folders if f.title.lower() in words]

    def _render(self, intent: Intent, query: str, chosen: list[Activated]) -> TurnContext:
        budget = self.settings.budget
        blocks: list[str] = []
        kept: list[Activated] = []
        for item in chosen:
            fact = item.record.kind is RecordKind.FACT  # its label is its text: said once
            header = f"[{item.record.kind.value}]" if fact else f"[{item.record.kind.value}] {item.label}"
            cap = self.settings.record_tokens
            if item.record.kind is RecordKind.OVERVIEW:
                cap = self.settings.overview_tokens
            elif item.score is None and item.record.kind is not RecordKind.SECTION:
                cap = self.settings.outline_tokens
            room = budget - tokens.count("\n\n".join([*blocks, header])) - 1
            body = tokens.truncate(item.record.text.strip(), min(cap, room))
            if room < 8 or not body:
                continue
            blocks.append(f"{header}\n{body}")
            kept.append(item)
        text = "\n\n".join(blocks)
        while blocks and tokens.count(text) > budget:  # joining can merge tokens across a boundary
            blocks.pop()
            kept.pop()
            text = "\n\n".join(blocks)
        return TurnContext(intent, query, tuple(kept), text, tokens.count(text), budget)


def _bare(section: ProjectRecord) -> bool:
    """A heading with (almost) no text of its own: under `BARE_TOKENS` tokens below its first line."""
    body = section.text.strip().partition("\n")[2]
    return tokens.count(body.strip()) < BARE_TOKENS
