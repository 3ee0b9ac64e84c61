"""Pipeline knobs that do not depend on the suite (those that do are in `ruleset.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from harness.pipeline.fusion import RRF_K


class Mode(StrEnum):
    BM25 = "bm25"
    VECTOR = "vector"
    HYBRID = "hybrid"

    @property
    def needs_vectors(self) -> bool:
        return self is not Mode.BM25


SURFACE_FIELDS: Mapping[str, float] = MappingProxyType({"name": 1.0, "aliases": 2.0})
CONTENT_FIELDS: Mapping[str, float] = MappingProxyType({"content": 1.0})


@dataclass(frozen=True)
class PipelineSettings:
    """Engine knobs, the same for every suite. `fields` is the retrieval surface: name + aliases by
    default, `CONTENT_FIELDS` to compare. The rules that differ per suite are in `Ruleset`."""

    fields: Mapping[str, float] = field(default_factory=lambda: SURFACE_FIELDS)
    rrf_k: int = RRF_K
    relation_decay: float = 0.5
