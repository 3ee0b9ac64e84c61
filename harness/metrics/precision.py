"""Precision: the share of what was returned that should have been (TREC P@k and set precision)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from harness.metrics.common import check_unique, relevant_ids, top_k


def precision_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """TREC P@k: relevant docs in the top k divided by k, even when fewer than k were retrieved.

    Dividing by k (not by the number returned) is trec_eval's `P_k`, so returning fewer
    results never looks more precise.
    """
    relevant = relevant_ids(qrels)
    return sum(doc in relevant for doc in top_k(ranking, k)) / k


def set_precision(retrieved: Collection[str], expected: Collection[str]) -> float | None:
    """PrecisionMemBench precision |retrieved ∩ expected| / |retrieved|.

    None when nothing is expected (the case says nothing about precision and is left out of
    means); 0.0 when something is expected but nothing came back, so an empty answer scores 0.
    """
    check_unique(retrieved, "retrieved")
    check_unique(expected, "expected")
    if not expected:
        return None
    if not retrieved:
        return 0.0
    return len(set(retrieved) & set(expected)) / len(retrieved)


def set_recall(retrieved: Collection[str], expected: Collection[str]) -> float | None:
    """PrecisionMemBench recall |retrieved ∩ expected| / |expected|; None when nothing is expected."""
    check_unique(retrieved, "retrieved")
    check_unique(expected, "expected")
    if not expected:
        return None
    return len(set(retrieved) & set(expected)) / len(expected)
