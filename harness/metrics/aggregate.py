"""Per-query score bundles and means that skip queries a metric cannot score."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.metrics.ndcg import ndcg_at
from harness.metrics.precision import precision_at
from harness.metrics.recall import recall_all_at, recall_at, success_at
from harness.metrics.reciprocal_rank import reciprocal_rank


def mean_defined(values: Iterable[float | None]) -> float | None:
    """Mean of the non-None values (None marks "not applicable"); None if there are none."""
    defined = [value for value in values if value is not None]
    if not defined:
        return None
    return math.fsum(defined) / len(defined)


@dataclass(frozen=True)
class RankingScores:
    """Every ranked metric for one query; the dicts are keyed by cutoff k.

    Recall-family values are 0.0 for a query with no relevant doc; exclude such queries
    before averaging them.
    """

    precision: dict[int, float]
    recall: dict[int, float]
    recall_all: dict[int, float]
    success: dict[int, float]
    ndcg: dict[int, float]
    mrr: float
    """Reciprocal rank without a cutoff (trec_eval `recip_rank`)."""


def score_ranking(ranking: Sequence[str], qrels: Mapping[str, int], ks: Iterable[int] = (1, 5, 10)) -> RankingScores:
    """Score one query's ranking at each distinct cutoff in `ks` (at least one)."""
    cutoffs = sorted(set(ks))
    if not cutoffs:
        raise ValueError("ks must name at least one cutoff")
    return RankingScores(
        precision={k: precision_at(ranking, qrels, k) for k in cutoffs},
        recall={k: recall_at(ranking, qrels, k) for k in cutoffs},
        recall_all={k: recall_all_at(ranking, qrels, k) for k in cutoffs},
        success={k: success_at(ranking, qrels, k) for k in cutoffs},
        ndcg={k: ndcg_at(ranking, qrels, k) for k in cutoffs},
        mrr=reciprocal_rank(ranking, qrels),
    )
