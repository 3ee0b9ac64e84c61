"""Agent-memory retrieval harness: the same cases on every backend, scored by IR conventions."""

__version__ = "0.1.0"
