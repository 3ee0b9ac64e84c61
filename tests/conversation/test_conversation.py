"""`prepare` and `process` on a small project: what each intent puts in the context, references
back to the previous request, the token budget, and facts stored then recalled."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import tokens
from harness.backends import registry
from harness.models.conversation import Intent
from harness.models.project import RecordKind
from harness.pipeline.conversation import ContextSettings, Conversation, search_text
from harness.pipeline.project_memory import ProjectMemory
from harness.suites.projects import ingest


def _write(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# Beacon\n\nBeacon watches lighthouse lamps and pages the keeper on failure.\n")
    (root / "docs" / "lamps.md").write_text(
        "# Lamps\n\n## Bulb changes\n\nBulbs are changed every ninety nights by the relief keeper.\n\n"
        "## Lenses\n\nThe Fresnel lens is cleaned with vinegar on Sundays.\n"
    )
    (root / "docs" / "radio.md").write_text("# Radio\n\nThe keeper's pager listens on channel sixteen.\n")
    return root


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[ProjectMemory]:
    engine = registry.connect("embedded")
    loaded = ProjectMemory.open(engine, f"t{uuid.uuid4().hex[:8]}")
    loaded.load(ingest(_write(tmp_path / "beacon")))
    yield loaded
    engine.close()


def test_specific_message_gets_the_section_that_answers(memory: ProjectMemory) -> None:
    context = Conversation(memory).prepare("How often are the bulbs changed?")
    assert context.intent is Intent.SPECIFIC
    assert context.records[0].record.id == "docs/lamps.md#Lamps/Bulb changes"
    assert "ninety nights" in context.text
    assert "channel sixteen" not in context.text
    assert context.tokens == tokens.count(context.text)
    assert context.text.startswith("[section] docs/lamps.md > Bulb changes\n")


def test_a_bare_heading_brings_the_sections_under_it(memory: ProjectMemory) -> None:
    context = Conversation(memory).prepare("What does the lamps document say?")
    ids = [a.record.id for a in context.records]
    assert "docs/lamps.md#Lamps" in ids
    assert {"docs/lamps.md#Lamps/Bulb changes", "docs/lamps.md#Lamps/Lenses"} <= set(ids)


def test_overview_and_chat(memory: ProjectMemory) -> None:
    conversation = Conversation(memory)
    overview = conversation.prepare("Give me an overview of the project")
    assert overview.intent is Intent.OVERVIEW
    assert overview.records[0].record.kind is RecordKind.OVERVIEW
    assert [a.record.id for a in overview.records[1:]] == ["docs", "README.md"]  # top level: folders first
    chat = conversation.prepare("Thanks, nice.")
    assert chat.intent is Intent.CHAT
    assert (chat.records, chat.text, chat.tokens) == ((), "", 0)


def test_reference_back_searches_with_the_previous_request(memory: ProjectMemory) -> None:
    history = [("How is the Fresnel lens cleaned?", "With vinegar."), ("ok", "")]
    assert search_text("When is it done?", history) == "How is the Fresnel lens cleaned?\nWhen is it done?"
    assert search_text("When is the radio checked?", history) == "When is the radio checked?"
    context = Conversation(memory).prepare("When is it done?", history)
    assert "sundays" in context.text.lower()


def test_budget_caps_the_rendered_context(memory: ProjectMemory) -> None:
    small = Conversation(memory, settings=ContextSettings(budget=40)).prepare(
        "Show me the lamps, bulbs, lens, keeper and pager notes"
    )
    assert 0 < small.tokens <= 40
    assert small.tokens == tokens.count(small.text)
    assert small.budget == 40


def test_facts_are_stored_and_recalled(memory: ProjectMemory) -> None:
    conversation = Conversation(memory)
    stored = conversation.process("By the way, the relief keeper is Ingrid Solberg. Where is the pager?", "On 16.")
    assert [r.text for r in stored] == ["the relief keeper is Ingrid Solberg"]
    assert [r.kind for r in stored] == [RecordKind.FACT]
    assert [f.text for f in conversation.facts_containing("INGRID")] == ["the relief keeper is Ingrid Solberg"]
    assert conversation.facts_containing("olaf") == []
    recalled = conversation.prepare("Who is the relief keeper?")
    assert recalled.records[0].record.kind is RecordKind.FACT
    assert "Ingrid Solberg" in recalled.text
    unrelated = conversation.prepare("How is the Fresnel lens cleaned?")
    assert "Ingrid" not in unrelated.text  # a fact comes back only when the message shares two of its words
