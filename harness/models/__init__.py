"""Validated models at the edges: memories, cases, suites, haystack questions (`haystack`)."""

from harness.models.cases import (
    AliasUpdate,
    Budget,
    Expect,
    NoiseExpect,
    PreludeExpect,
    SessionCase,
    StaticCase,
    TierExpect,
    Turn,
    TurnLabel,
)
from harness.models.memory import UNIVERSAL_SCOPE, Label, Memory, MemoryType, Status
from harness.models.suite import Corpus, Suite

__all__ = [
    "UNIVERSAL_SCOPE",
    "AliasUpdate",
    "Budget",
    "Corpus",
    "Expect",
    "Label",
    "Memory",
    "MemoryType",
    "NoiseExpect",
    "PreludeExpect",
    "SessionCase",
    "StaticCase",
    "Status",
    "Suite",
    "TierExpect",
    "Turn",
    "TurnLabel",
]
