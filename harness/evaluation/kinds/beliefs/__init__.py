"""Belief snapshots and sessions: the kind's spec, its port and runner, and the port's adapters."""

from harness.evaluation.kinds.beliefs.spec import SPEC

__all__ = ["SPEC"]
