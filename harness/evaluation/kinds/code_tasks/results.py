"""One code task in one mode, scored: what each answering layer surfaced and the recall it reached."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from harness.evaluation.results import Errs


@dataclass
class CodeTaskResult(Errs):
    """One task in one mode: the recall after each layer, what matched, what each layer surfaced."""

    suite: str
    task_id: str
    category: str
    backend: str
    mode: str
    question: str
    expected: dict[str, list[str]] = field(default_factory=dict)
    recall: float | None = None
    """After every layer, the agent pass included: the task's score (nano-brain's `agent_recall`)."""
    fixed_recall: float | None = None
    """The task's own tools alone (nano-brain's `fixed_recall`)."""
    layers: dict[str, float] = field(default_factory=dict)
    """Cumulative recall after each layer (`search`, `identifiers`, `graph`)."""
    matched: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    matched_by: dict[str, str] = field(default_factory=dict)
    """Each matched symbol or file: the record (or outside name) and tool that surfaced it first."""
    identifiers: list[str] = field(default_factory=list)
    surfaced: dict[str, list[str]] = field(default_factory=dict)
    """Per layer, the ids of the records it added."""
    externals: list[str] = field(default_factory=list)
    """Names a flow passed through outside the project (graph layer)."""
    latency_ms: float | None = None
    error: str | None = None
    backend_lost: bool = False

    @property
    def item_id(self) -> str:
        return self.task_id

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
