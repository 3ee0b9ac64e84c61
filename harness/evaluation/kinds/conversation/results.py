"""A conversation turn in one mode, as the runner judged it and the report records it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from harness.evaluation.results import Fails


@dataclass
class TurnResult(Fails):
    """One turn in one mode: the context it got, the verdict per component, and the token counts."""

    suite: str
    scenario: str
    turn: int
    category: str
    backend: str
    mode: str | None
    user: str
    expected: dict[str, Any]
    intent: str | None = None
    context: str = ""
    tokens: int = 0
    """The rendered context's cl100k_base tokens (the warm tokens)."""
    records: list[dict[str, Any]] = field(default_factory=list)
    facts_stored: list[str] = field(default_factory=list)
    components: dict[str, bool] = field(default_factory=dict)
    """Per asserted component, whether it held."""
    passed: bool = False
    """The turn's verdict under the run's turn rules."""
    counted: bool = True
    """Whether the turn counts in its category's score (under the run's turn rules)."""
    effective: bool = False
    """Whether it holds there: its deciding content checks held."""
    reasons: list[str] = field(default_factory=list)
    input_tokens: int = 0
    """What this turn sends: context plus message."""
    history_tokens: int = 0
    """What sending the whole history would: every earlier message and reply, plus this message."""
    agent_tokens: int | None = None
    """What the scripted agent read before it could answer (None: the turn has no answer terms)."""
    agent_steps: list[str] = field(default_factory=list)
    agent_answered: bool | None = None
    latency_ms: float | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    backend_lost: bool = False

    @property
    def item_id(self) -> str:
        return f"{self.scenario}#{self.turn}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
