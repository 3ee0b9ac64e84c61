"""What the code-tasks kind needs of whatever answers its tasks: the task set's code base stored
once per engine, then each task answered in a mode by its tools.

A task's tools (symbols lookup, flow, impact, trace) find records by name and walk their call
edges and routes: what `Capability.CODE_GRAPH` declares. The reference pipeline's project memory
has it (`reference.py`); the system protocol returns ranked records for a text query and has no
operation for either, so no system under test gets a port, whatever it declares, and the kind is
not applicable to one (its runner says so through the capability it needs).
"""

from __future__ import annotations

from typing import Protocol

from harness.models.code_task import CodeTask
from harness.models.project import Project
from harness.pipeline.code_answer import Answer
from harness.pipeline.settings import Mode
from harness.systems.protocol import Capability


class Answering(Protocol):
    """The code base stored on one engine, answering tasks."""

    def answer(self, task: CodeTask, mode: Mode) -> Answer:
        """What the task's tools surfaced in `mode`, layer by layer."""
        ...

    def close(self) -> None:
        """Drop what was stored (called in a `finally`)."""
        ...


class CodePort(Protocol):
    """Whatever answers code tasks on one engine."""

    @property
    def capabilities(self) -> frozenset[Capability]: ...

    def open(self, project: Project) -> Answering:
        """The code base stored; a failure leaves nothing stored."""
        ...
