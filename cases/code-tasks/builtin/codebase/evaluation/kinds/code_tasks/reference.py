"""The code-tasks port over the reference pipeline: the code base in project memory on the run's
engine (one index), each task answered by `pipeline.code_answer.CodeAnswerer` under the set's rules."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from harness.backends.base import Backend
from harness.evaluation import teardown
from harness.models.code_task import AgentPass, CodeTask
from harness.models.project import Project
from harness.pipeline.code_answer import Answer, CodeAnswerer
from harness.pipeline.code_rules import CodeTaskRules
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.project_memory import ProjectMemory
from harness.pipeline.settings import Mode
from harness.systems.protocol import Capability

CAPABILITIES = frozenset({Capability.CODE_GRAPH})
"""Records by name with their call edges and routes, which the tasks' tools walk."""


@dataclass(frozen=True)
class _Answering:
    memory: ProjectMemory
    answerer: CodeAnswerer
    what: str

    def answer(self, task: CodeTask, mode: Mode) -> Answer:
        return self.answerer.answer(task, mode)

    def close(self) -> None:
        teardown.drop(self.memory.index, self.what)


@dataclass(frozen=True)
class ReferenceCode:
    """The pipeline on one engine (`embedder`: None when no mode of the run needs vectors)."""

    backend: Backend
    embedder: TextEmbedder | None
    agent: AgentPass | None
    rules: CodeTaskRules
    what: str
    """What the stored code base is called if it cannot be dropped."""
    capabilities: frozenset[Capability] = CAPABILITIES

    def open(self, project: Project) -> _Answering:
        memory = ProjectMemory.open(self.backend, f"c{uuid.uuid4().hex[:12]}", self.embedder)
        try:
            memory.load(project)
        except BaseException:
            teardown.drop(memory.index, self.what)
            raise
        return _Answering(memory, CodeAnswerer(memory, self.agent, self.rules), self.what)
