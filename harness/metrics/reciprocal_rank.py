"""Reciprocal rank: how far down the first relevant doc sits (its mean over queries is MRR)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.metrics.common import check_unique, relevant_ids, top_k


def reciprocal_rank(ranking: Sequence[str], qrels: Mapping[str, int], k: int | None = None) -> float:
    """1/rank of the first relevant doc within the top k (whole ranking if k is None), else 0.0.

    With k=None this is trec_eval's `recip_rank`, which has no cutoff; with k it is MRR@k.
    """
    if k is None:
        check_unique(ranking, "ranking")
        considered = ranking
    else:
        considered = top_k(ranking, k)
    relevant = relevant_ids(qrels)
    for rank, doc in enumerate(considered, start=1):
        if doc in relevant:
            return 1.0 / rank
    return 0.0
