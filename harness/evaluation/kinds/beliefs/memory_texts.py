"""The texts of the memories a belief report names, so its page shows what was retrieved and
expected, not ids alone. Bounded: each memory once per suite (a table keyed by id, not a copy per
case), only the ids some case retrieved or expected, each text cut to `TEXT_CHARS`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.models.memory import Memory
from harness.models.suite import Suite

TEXT_CHARS = 200
"""A memory's text as the report keeps it: its name, then its content, cut here (with `…`)."""


def memory_text(memory: Memory, limit: int = TEXT_CHARS) -> str:
    text = memory.name if not memory.content or memory.content == memory.name else f"{memory.name}: {memory.content}"
    text = text.strip() or memory.content
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _memories(suite: Suite) -> Iterator[Memory]:
    """The corpus, then what session turns create (mid-session memories are retrieved too)."""
    yield from suite.corpus.memories
    yield from (turn.create for case in suite.session_cases for turn in case.turns if turn.create is not None)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _named(results: Iterable[CaseResult]) -> dict[str, set[str]]:
    """Per suite, every string its cases retrieved or expected (ids among them)."""
    named: dict[str, set[str]] = {}
    for result in results:
        named.setdefault(result.suite, set()).update(_strings(result.expected), _strings(result.retrieved))
    return named


def memory_texts(suites: Sequence[Suite], results: Iterable[CaseResult]) -> dict[str, dict[str, str]]:
    """Per suite name, `{memory id: text}` for each memory a case of it retrieved or expected."""
    named = _named(results)
    texts: dict[str, dict[str, str]] = {}
    for suite in suites:
        wanted = named.get(suite.name, set())
        table = texts.setdefault(suite.name, {})
        for memory in _memories(suite):
            if memory.id in wanted and memory.id not in table:
                table[memory.id] = memory_text(memory)
    return {name: dict(sorted(table.items())) for name, table in texts.items() if table}
