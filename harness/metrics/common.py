"""Input checks and the relevance rule shared by every ranked metric, so all of them agree."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

RELEVANT_GRADE = 1
"""Lowest grade that counts as relevant (trec_eval's default `rel` level); 0 or absent is not."""


def check_k(k: int) -> None:
    """Reject cutoffs below 1: `@0` has no meaning and would divide by zero in P@k."""
    if k < 1:
        raise ValueError(f"cutoff k must be >= 1, got {k}")


def check_unique(ids: Collection[str], what: str) -> None:
    """Reject a bare string and repeated ids: either would silently inflate counts."""
    if isinstance(ids, str):
        raise TypeError(f"{what} must be a collection of doc ids, not a string")
    if len(set(ids)) != len(ids):
        raise ValueError(f"{what} contains duplicate doc ids")


def top_k(ranking: Sequence[str], k: int) -> Sequence[str]:
    """The validated ranking cut at `k`, the slice every `@k` metric scores."""
    check_k(k)
    check_unique(ranking, "ranking")
    return ranking[:k]


def relevant_ids(qrels: Mapping[str, int]) -> frozenset[str]:
    """Doc ids judged relevant (grade >= RELEVANT_GRADE)."""
    return frozenset(doc for doc, grade in qrels.items() if grade >= RELEVANT_GRADE)
