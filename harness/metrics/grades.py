"""PASS / WARN / FAIL grades of lifecycle scores, with the Mnemonic benchmark's thresholds
(peer-formats.md §3.3): a value at or above PASS passes, at or above WARN warns, else fails."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum


class Grade(StrEnum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"


@dataclass(frozen=True, slots=True)
class Threshold:
    passing: float
    warning: float
    gating: bool
    """Whether the metric decides the overall grade (nDCG is shown, not gating)."""

    def grade(self, value: float) -> Grade:
        if value >= self.passing:
            return Grade.PASS
        return Grade.WARN if value >= self.warning else Grade.FAIL


THRESHOLDS: Mapping[str, Threshold] = {
    "precision": Threshold(0.70, 0.50, gating=True),
    "mrr": Threshold(0.60, 0.40, gating=True),
    "noise_suppression": Threshold(0.60, 0.40, gating=True),
    "signal_retention": Threshold(0.80, 0.60, gating=True),
    "ndcg": Threshold(0.60, 0.40, gating=False),
    "signal_survival": Threshold(0.80, 0.60, gating=True),
}
"""Per metric (P@5, MRR, noise suppression, signal retention, nDCG, raw-event signal survival:
it grades raw-event scenarios, which never decide a suite's overall grade)."""


def overall(grades: Mapping[str, Grade]) -> Grade:
    """FAIL if a gating metric fails, else WARN if one warns, else PASS."""
    gating: Iterable[Grade] = [g for name, g in grades.items() if THRESHOLDS[name].gating]
    if Grade.FAIL in gating:
        return Grade.FAIL
    return Grade.WARN if Grade.WARN in gating else Grade.PASS
