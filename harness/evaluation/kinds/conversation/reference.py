"""The conversation port over the reference pipeline: the scenario's project loaded into project
memory on the run's engine, and `pipeline.conversation.Conversation` building each turn's context
(its intent classification included)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from harness.backends.base import Backend
from harness.evaluation import teardown
from harness.models.conversation import Scenario
from harness.models.project import Project
from harness.pipeline.conversation import ContextSettings, Conversation, TurnContext
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.project_memory import ProjectMemory
from harness.pipeline.settings import Mode
from harness.systems.protocol import Capability

CAPABILITIES = frozenset({Capability.BUDGET, Capability.INTENT})
"""A context is cut to its token budget, and carries the message's intent."""


class ReferenceConversation(Conversation):
    """The pipeline's conversation, dropped from its engine when closed."""

    latency_ms: float | None = None
    """Not timed apart: the runner times `prepare` whole."""

    def __init__(self, memory: ProjectMemory, mode: Mode, settings: ContextSettings, what: str):
        super().__init__(memory, mode, settings)
        self.what = what

    def prepare(
        self,
        message: str,
        history: Sequence[tuple[str, str]] = (),
        judged_at: int | None = None,  # noqa: ARG002 - a system's search field, see below
    ) -> TurnContext:
        """The pipeline's context, sized by the message's intent as it always is: the budget a turn
        is judged at is what a system's search is told, since a system cannot classify the turn."""
        return super().prepare(message, history)

    def close(self) -> None:
        teardown.drop(self.memory.index, self.what)


@dataclass(frozen=True)
class ReferenceConversations:
    """The pipeline on one engine (`embedder`: None when no mode of the run needs vectors)."""

    backend: Backend
    embedder: TextEmbedder | None
    settings: ContextSettings
    capabilities: frozenset[Capability] = CAPABILITIES

    def open(self, scenario: Scenario, project: Project, mode: Mode) -> ReferenceConversation:
        memory = ProjectMemory.open(
            self.backend, f"c{uuid.uuid4().hex[:12]}", self.embedder if mode.needs_vectors else None
        )
        what = f"conversation {scenario.name!r} ({mode.value}) on {self.backend.name}"
        try:
            if project.records:  # a chat-only scenario starts from an empty memory
                memory.load(project)
        except BaseException:
            teardown.drop(memory.index, what)
            raise
        return ReferenceConversation(memory, mode, self.settings, what)
