"""Recall-family metrics at a cutoff: the fraction found, all found (LongMemEval), any found.

All three return 0.0 for a query with no relevant doc. Such a query cannot be scored on
recall, so callers must exclude it from means rather than average in the 0.0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.metrics.common import relevant_ids, top_k


def recall_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """TREC R@k: relevant docs in the top k divided by all relevant docs (0.0 if none exist)."""
    found = top_k(ranking, k)
    relevant = relevant_ids(qrels)
    if not relevant:
        return 0.0
    return sum(doc in relevant for doc in found) / len(relevant)


def recall_all_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """LongMemEval `recall_all@k`: 1.0 if every relevant doc is in the top k, else 0.0.

    Unlike LongMemEval's `all(...)`, which is vacuously 1.0 with no relevant doc, this returns
    0.0 then, so that `recall_all_at <= recall_at <= success_at` holds for every query.
    """
    found = set(top_k(ranking, k))
    relevant = relevant_ids(qrels)
    return float(bool(relevant) and relevant <= found)


def success_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """trec_eval `success.k` / LongMemEval `recall_any@k`: 1.0 if any relevant doc is in the top k."""
    relevant = relevant_ids(qrels)
    return float(any(doc in relevant for doc in top_k(ranking, k)))
