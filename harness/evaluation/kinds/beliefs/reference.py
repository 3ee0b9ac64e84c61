"""The belief port over the reference pipeline (`harness.pipeline.MemoryPipeline`): every tier,
the persona prelude and each score's clauses, on the run's engine."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from harness.backends.base import Backend
from harness.evaluation import teardown
from harness.evaluation.kinds.beliefs.port import Beliefs, Construction, Need
from harness.models import Memory, Suite, Turn
from harness.pipeline import Context, MemoryPipeline, Mode, PipelineSettings
from harness.pipeline.memory_layer import Request, TextEmbedder
from harness.pipeline.ruleset import CaseKind, Ruleset
from harness.systems.protocol import REFERENCE, Capability

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
