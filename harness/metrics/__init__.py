"""IR metrics with trec_eval's conventions, one module per family (as in ranx / ir_measures).

Rankings are doc ids best first, already tie-broken by the caller; qrels map doc id to grade,
grade >= 1 relevant. Each function scores one query; `aggregate` averages; `measures` declares
each reported measure once (name, cut-off, function, definition, label); `evaluate` scores a
whole run (query -> doc -> score) ranked by the one tie-break.
"""

from harness.metrics.aggregate import mean_defined
from harness.metrics.drift import drift_score
from harness.metrics.evaluate import evaluate, rank_key, ranked_ids
from harness.metrics.latency import LatencySummary, latency_summary
from harness.metrics.measures import MRR, Measure, measure, measures
from harness.metrics.ndcg import ndcg_at
from harness.metrics.pass_type import PassType, classify
from harness.metrics.precision import precision_at, set_precision, set_recall
from harness.metrics.recall import recall_all_at, recall_at, success_at
from harness.metrics.reciprocal_rank import reciprocal_rank

__all__ = [
    "MRR",
    "LatencySummary",
    "Measure",
    "PassType",
    "classify",
    "drift_score",
    "evaluate",
    "latency_summary",
    "mean_defined",
    "measure",
    "measures",
    "ndcg_at",
    "precision_at",
    "rank_key",
    "ranked_ids",
    "recall_all_at",
    "recall_at",
    "reciprocal_rank",
    "set_precision",
    "set_recall",
    "success_at",
]
