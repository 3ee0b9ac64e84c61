"""A question asked over a haystack, in one mode: its rankings, metrics and status; and a run's worth of them."""

from __future__ import annotations

import resource
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode

REPORTED_HITS = 10
"""Retrieved ids kept per question and level in the report (metrics use the full ranking)."""


class QuestionStatus(StrEnum):
    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class LevelResult:
    """One question's ranking and metrics at one level (session or turn)."""

    level: Granularity
    gold: tuple[str, ...]
    retrieved: tuple[tuple[str, float], ...]
    metrics: dict[str, float]
    ranking: tuple[tuple[str, float], ...] = ()
    """The whole scored ranking (TREC export); `retrieved` is its head as the report keeps it."""


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """One question in one mode; skipped questions (no gold) have mode None and no levels."""

    id: str
    haystack: str
    category: str
    text: str
    mode: Mode | None
    status: QuestionStatus
    reason: str | None = None
    latency_s: float | None = None
    levels: tuple[LevelResult, ...] = ()
    defects: tuple[str, ...] = ()
    abstention: bool = False
    backend_lost: bool = False

    @property
    def item_id(self) -> str:
        return self.id

    @property
    def error(self) -> str | None:
        return self.reason if self.status is QuestionStatus.ERROR else None

    def to_json(self) -> dict[str, Any]:
        """The question as the report records it (`harness.evaluation.merge` reads it back)."""
        return {
            "id": self.id,
            "haystack": self.haystack,
            "type": self.category,
            "question": self.text,
            "mode": str(self.mode) if self.mode else None,
            "status": str(self.status),
            "error": self.reason,
            "backend_lost": self.backend_lost,
            "latency_ms": None if self.latency_s is None else round(self.latency_s * 1000, 3),
            "abstention": self.abstention,
            "defects": list(self.defects),
            "levels": {
                str(lv.level): {
                    "gold": list(lv.gold),
                    "retrieved": [[i, s] for i, s in lv.retrieved],
                    "metrics": lv.metrics,
                }
                for lv in self.levels
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QuestionResult:
        """A report's question record read back (the inverse of `to_json`)."""
        return cls(
            id=data["id"],
            haystack=data["haystack"],
            category=data["type"],
            text=data["question"],
            mode=Mode(data["mode"]) if data["mode"] else None,
            status=QuestionStatus(data["status"]),
            reason=data["error"],
            latency_s=None if data["latency_ms"] is None else data["latency_ms"] / 1000,
            levels=tuple(
                LevelResult(
                    Granularity(level), tuple(lv["gold"]), tuple((i, s) for i, s in lv["retrieved"]), lv["metrics"]
                )
                for level, lv in data["levels"].items()
            ),
            defects=tuple(data["defects"]),
            abstention=data["abstention"],
            backend_lost=data.get("backend_lost", False),
        )


@dataclass(frozen=True, slots=True)
class HaystackStats:
    id: str
    documents: int
    questions: int
    embed_s: float
    ingest_s: float


@dataclass
class Evaluation:
    """Everything a report needs from one run."""

    granularity: Granularity
    modes: tuple[Mode, ...]
    results: list[QuestionResult] = field(default_factory=list)
    haystacks: list[HaystackStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0

    @property
    def asked(self) -> list[QuestionResult]:
        return [r for r in self.results if r.status is not QuestionStatus.SKIPPED]

    def error_fraction(self) -> float:
        asked = self.asked
        return sum(r.status is QuestionStatus.ERROR for r in asked) / len(asked) if asked else 0.0

    @property
    def errors(self) -> list[QuestionResult]:
        return [r for r in self.results if r.status is QuestionStatus.ERROR]


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
