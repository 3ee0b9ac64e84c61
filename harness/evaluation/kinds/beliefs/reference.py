"""The belief port over the reference pipeline (`harness.pipeline.MemoryPipeline`): every tier,
the persona prelude and each score's clauses, on the run's engine; and the pipeline's engine
search alone (`EngineSearches`), which a leaderboard's adapter wraps under its context rules."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from harness.backends.base import Backend
from harness.evaluation import teardown
from harness.evaluation.kinds.beliefs.port import Beliefs, Construction, Need
from harness.models import Memory, Suite, Turn
from harness.pipeline import Context, MemoryPipeline, Mode, PipelineSettings
from harness.pipeline.context_rules import AdapterKind, live
from harness.pipeline.engine_search import EngineSearch
from harness.pipeline.memory_layer import Request, TextEmbedder
from harness.pipeline.ruleset import CaseKind, Ruleset
from harness.systems.protocol import REFERENCE, Capability, Query

CAPABILITIES: frozenset[Need] = frozenset(
    {
        Capability.USERS,
        Capability.SCOPES,
        Capability.SUPERSESSION,
        Capability.PINNED,
        Capability.REPLACE,
        Construction.PRELUDE,
    }
)
"""The pipeline's memory semantics: isolation, supersession, pinned facts, updates in place, a prelude."""


class PipelineBeliefs:
    """One pipeline on a namespace of its own; `what` names its data when a drop fails."""

    def __init__(self, pipeline: MemoryPipeline, what: str):
        self._pipeline = pipeline
        self._what = what

    def load(self, memories: Sequence[Memory]) -> None:
        self._pipeline.load(memories)

    def mutate(self, turn: Turn) -> None:
        if turn.create is not None:
            self._pipeline.put(turn.create)
        if turn.update is not None:
            self._pipeline.add_aliases(turn.update.memory_id, turn.update.add_aliases)

    def context(self, request: Request, mode: Mode) -> Context:
        return self._pipeline.retrieve(request, mode)

    def topics(self, memory_id: str) -> tuple[str, ...]:
        return self._pipeline.memory(memory_id).topics

    def close(self) -> None:
        teardown.drop(self._pipeline.index, self._what)


class ReferencePort:
    """Pipelines on `backend`, with vectors where `embedder` is given."""

    name = REFERENCE
    capabilities = CAPABILITIES

    def __init__(self, backend: Backend, settings: PipelineSettings, embedder: TextEmbedder | None):
        self._backend = backend
        self._settings = settings
        self._embedder = embedder

    def open(self, suite: Suite, rules: Ruleset, kind: CaseKind) -> Beliefs:  # noqa: ARG002 - one pipeline serves both
        namespace = f"h{uuid.uuid4().hex[:12]}"
        pipeline = MemoryPipeline.open(self._backend, namespace, self._settings, self._embedder, rules)
        return PipelineBeliefs(pipeline, f"suite {suite.name!r} on {self._backend.name}")


ENGINE_SEARCH: frozenset[Need] = frozenset({Capability.USERS, Capability.SUPERSESSION, Capability.REPLACE})
"""What the engine search does itself: one user's memories, the live ones, a created one replacing
its namespace's copy; scopes, pinned facts and the prelude are the adapter's."""


class EngineBeliefs:
    """The engine search on a namespace of its own, as an adapter's wrapped search."""

    def __init__(self, engine: EngineSearch, what: str):
        self._engine = engine
        self._what = what

    def seed(self, memories: Sequence[Memory]) -> None:
        self._engine.load(memories)

    def ingest(self, memory: Memory) -> None:
        self._engine.put(memory)

    def search(self, query: Query, mode: Mode) -> list[str]:
        return [hit.id for hit in self._engine.search(query.text, query.user, query.limit, mode)]

    def close(self) -> None:
        teardown.drop(self._engine.index, self._what)


class EngineSearches:
    """The reference pipeline's engine search on `backend` (its fields, its encoder where
    `embedder` is given), live by the adapter's reader, for an adapter to wrap."""

    name = REFERENCE
    capabilities = ENGINE_SEARCH

    def __init__(self, backend: Backend, settings: PipelineSettings, embedder: TextEmbedder | None):
        self._backend = backend
        self._settings = settings
        self._embedder = embedder

    def open(self, suite: Suite, rules: Ruleset, kind: AdapterKind) -> EngineBeliefs:  # noqa: ARG002 - one index serves both
        namespace = f"h{uuid.uuid4().hex[:12]}"
        engine = EngineSearch.open(
            self._backend, namespace, self._settings, self._embedder, rules.embed_name_as_written, live
        )
        return EngineBeliefs(engine, f"suite {suite.name!r} on {self._backend.name}")
