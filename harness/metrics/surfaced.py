"""Surfaced recall, as nano-brain's capability benchmark scores a task: each expected symbol
must be a case-insensitive substring of some surfaced name, each expected file of some surfaced
path; recall = matched / (symbols + files), 1.0 when nothing is expected. Means per category and
overall are rounded to three decimals, as its aggregation does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean


@dataclass(frozen=True, slots=True)
class SurfacedRecall:
    recall: float
    matched: tuple[str, ...]
    missed: tuple[str, ...]


def surfaced_recall(
    expect_symbols: Sequence[str], expect_files: Sequence[str], names: Iterable[str], paths: Iterable[str]
) -> SurfacedRecall:
    lowered_names = [n.lower() for n in names]
    lowered_paths = [p.lower() for p in paths]
    matched: list[str] = []
    missed: list[str] = []
    for expected, pool in [*((s, lowered_names) for s in expect_symbols), *((f, lowered_paths) for f in expect_files)]:
        needle = expected.lower()
        (matched if any(needle in candidate for candidate in pool) else missed).append(expected)
    total = len(expect_symbols) + len(expect_files)
    return SurfacedRecall(len(matched) / total if total else 1.0, tuple(matched), tuple(missed))


def round3(value: float) -> float:
    """Half away from zero, as Go's math.Round(v*1000)/1000 (recalls are never negative)."""
    return int(value * 1000 + 0.5) / 1000


def mean_recall(recalls: Sequence[float]) -> float:
    return round3(fmean(recalls)) if recalls else 0.0


def by_category(recalls: Mapping[str, Sequence[float]]) -> dict[str, float]:
    return {category: mean_recall(values) for category, values in sorted(recalls.items())}
