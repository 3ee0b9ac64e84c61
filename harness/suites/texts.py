"""Every text a suite will ask an embedder for, so `harness embed` can compute them ahead of time."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from harness.models import Memory, Suite
from harness.pipeline.ruleset import ruleset
from harness.pipeline.surface import embedding_text


def suite_texts(suite: Suite, fields: Mapping[str, float]) -> Iterator[str]:
    """Memory texts (also as created and updated mid-session) and every query, in suite order."""
    as_written = ruleset(suite.ruleset).embed_name_as_written
    memories: dict[str, Memory] = {m.id: m for m in suite.corpus.memories}
    yield from (embedding_text(m, fields, as_written) for m in memories.values())
    yield from (case.query for case in suite.static_cases)
    for session in suite.session_cases:
        for turn in session.turns:
            if turn.create is not None:
                memories[turn.create.id] = turn.create
                yield embedding_text(turn.create, fields, as_written)
            if turn.update is not None:
                updated = memories[turn.update.memory_id].with_aliases(turn.update.add_aliases)
                memories[updated.id] = updated
                yield embedding_text(updated, fields, as_written)
            yield turn.message
