"""Surfaced recall, as nano-brain's capability benchmark scores a task: each expected symbol
must be a case-insensitive substring of some surfaced name, each expected file of some surfaced
path; recall = matched / (symbols + files), 1.0 when nothing is expected. Means per category and
overall are rounded to three decimals, as its aggregation does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean


@dataclass(frozen=True, slots=True)
class SurfacedRecall:
    recall: float
    matched: tuple[str, ...]
    missed: tuple[str, ...]
    by: dict[str, str] = field(default_factory=dict)
    """Each matched item's first matching candidate's source (what surfaced it)."""


def surfaced_recall(
    expect_symbols: Sequence[str], expect_files: Sequence[str], names: Iterable[str], paths: Iterable[str]
) -> SurfacedRecall:
    return sourced_recall(expect_symbols, expect_files, [(n, "") for n in names], [(p, "") for p in paths])


def sourced_recall(
    expect_symbols: Sequence[str],
    expect_files: Sequence[str],
    names: Iterable[tuple[str, str]],
    paths: Iterable[tuple[str, str]],
) -> SurfacedRecall:
    """`surfaced_recall` over (candidate, source) pairs, saying which source matched each item."""
    lowered_names = [(n.lower(), source) for n, source in names]
    lowered_paths = [(p.lower(), source) for p, source in paths]
    matched: list[str] = []
    missed: list[str] = []
    by: dict[str, str] = {}
    for expected, pool in [*((s, lowered_names) for s in expect_symbols), *((f, lowered_paths) for f in expect_files)]:
        needle = expected.lower()
        source = next((src for candidate, src in pool if needle in candidate), None)
        if source is None:
            missed.append(expected)
        else:
            matched.append(expected)
            by.setdefault(expected, source)
    total = len(expect_symbols) + len(expect_files)
    return SurfacedRecall(len(matched) / total if total else 1.0, tuple(matched), tuple(missed), by)


def round3(value: float) -> float:
    """Half away from zero, as Go's math.Round(v*1000)/1000 (recalls are never negative)."""
    return int(value * 1000 + 0.5) / 1000


def mean_recall(recalls: Sequence[float]) -> float:
    return round3(fmean(recalls)) if recalls else 0.0


def by_category(recalls: Mapping[str, Sequence[float]]) -> dict[str, float]:
    return {category: mean_recall(values) for category, values in sorted(recalls.items())}
