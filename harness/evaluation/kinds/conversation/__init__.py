"""Conversation turns over projects: one runner (`runner.py`) over one port (`port.py`), with an
adapter over the reference pipeline (`reference.py`) and one over any system under test declaring
a token budget (`system.py`); the turn judge (`judge.py`) under its rules (`rules.py`), the scripted
agent it is measured against (`agent.py`), its result rows (`results.py`) and report (`report.py`)."""

from harness.evaluation.kinds.conversation.spec import SPEC

__all__ = ["SPEC"]
