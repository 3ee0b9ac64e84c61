"""Per-question retrieval metrics at one level, and their definitions as the reports print them."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from harness.metrics import ndcg_at, recall_all_at, recall_at, reciprocal_rank, success_at

CUTOFFS = (1, 5, 10)

HEADLINE = (*(f"recall_any@{k}" for k in CUTOFFS), *(f"recall_all@{k}" for k in CUTOFFS), "ndcg@10", "mrr")
"""The metrics every table shows, in column order."""

_LABELS = {"recall_any": "R@{k} any", "recall_all": "R@{k} all", "recall": "recall@{k}", "ndcg": "nDCG@{k}"}


def label(metric: str) -> str:
    """A short column heading: `recall_any@5` -> `R@5 any`, `mrr` -> `MRR`."""
    family, _, k = metric.partition("@")
    return _LABELS[family].format(k=k) if k else metric.upper()


DEFINITIONS = {
    "recall_any@k": "1 if any gold item is in the top k, else 0 (trec_eval success@k; LongMemEval recall_any)",
    "recall_all@k": "1 if every gold item is in the top k, else 0 (LongMemEval's official recall_all)",
    "recall@k": "fraction of the gold items found in the top k (TREC recall)",
    "ndcg@10": "binary-gain nDCG@10 as trec_eval computes it (LongMemEval's ndcg_any)",
    "mrr": "1 / rank of the first gold item within the ranked list (cut at the retrieval depth), else 0",
}


def definition_of(metric: str) -> str:
    """The definition of a metric name such as `recall_any@5` or `mrr`."""
    family, at, k = metric.partition("@")
    return DEFINITIONS.get(metric) or DEFINITIONS[f"{family}@k" if at else family]


def metric_names() -> list[str]:
    names = [f"{family}@{k}" for family in ("recall_any", "recall_all", "recall") for k in CUTOFFS]
    return [*names, "ndcg@10", "mrr"]


def score(ranking: Sequence[str], gold: Collection[str]) -> dict[str, float]:
    """Every reported metric for one ranking against a non-empty gold set."""
    qrels = dict.fromkeys(gold, 1)
    scores: dict[str, float] = {}
    for k in CUTOFFS:
        scores[f"recall_any@{k}"] = success_at(ranking, qrels, k)
        scores[f"recall_all@{k}"] = recall_all_at(ranking, qrels, k)
        scores[f"recall@{k}"] = recall_at(ranking, qrels, k)
    scores["ndcg@10"] = ndcg_at(ranking, qrels, 10)
    scores["mrr"] = reciprocal_rank(ranking, qrels)
    return scores
