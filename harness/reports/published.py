"""Retrieval numbers published for these datasets, with the metric each one uses.

From ../shared/datasets/README.md. Every row names our metric with the same definition, so a
report compares like with like; published runs cover the full files.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.metrics.dataset_measures import metric_names
from harness.models.haystack import Granularity


@dataclass(frozen=True, slots=True)
class Published:
    dataset: str
    level: Granularity
    metric: str
    value: float
    system: str

    def __post_init__(self) -> None:
        if self.metric not in metric_names():
            raise ValueError(f"published {self.metric!r} is not a measure dataset runs score: {metric_names()}")


_S, _T = Granularity.SESSION, Granularity.TURN

PUBLISHED: tuple[Published, ...] = (
    Published("longmemeval-s", _S, "recall_any@5", 0.952, "agentmemory BM25 + MiniLM hybrid"),
    Published("longmemeval-s", _S, "recall_any@10", 0.986, "agentmemory BM25 + MiniLM hybrid"),
    Published("longmemeval-s", _S, "mrr", 0.882, "agentmemory BM25 + MiniLM hybrid"),
    Published("longmemeval-s", _S, "recall_any@5", 0.966, "MemPalace MiniLM alone"),
    Published("longmemeval-s", _S, "recall_any@1", 0.892, "Redis hybrid BM25 + all-MiniLM-L6-v2, RRF k=60 (p50 57 ms)"),
    Published("longmemeval-s", _S, "recall_any@5", 0.986, "Redis hybrid BM25 + all-MiniLM-L6-v2, RRF k=60 (p50 57 ms)"),
    Published(
        "longmemeval-s", _S, "recall_any@10", 0.992, "Redis hybrid BM25 + all-MiniLM-L6-v2, RRF k=60 (p50 57 ms)"
    ),
    Published("longmemeval-s", _S, "mrr", 0.931, "Redis hybrid BM25 + all-MiniLM-L6-v2, RRF k=60 (p50 57 ms)"),
    Published("longmemeval-s", _S, "recall_any@1", 0.856, "Redis BM25 alone"),
    Published("longmemeval-s", _S, "recall_any@5", 0.952, "Redis BM25 alone"),
    Published("longmemeval-s", _S, "recall_any@10", 0.978, "Redis BM25 alone"),
    Published("longmemeval-s", _S, "recall_all@5", 0.764, "BM25, a replication of the paper on S"),
    Published("longmemeval-s", _S, "recall_all@10", 0.843, "BM25, a replication of the paper on S"),
    Published("longmemeval-m", _S, "recall_all@5", 0.634, "BM25 (LongMemEval paper, M)"),
    Published("longmemeval-m", _S, "recall_all@5", 0.762, "best retriever (LongMemEval paper, M)"),
    Published("locomo", _T, "recall@5", 0.567, "DRAGON (LoCoMo paper), evidence recall"),
    Published("locomo", _T, "recall@10", 0.662, "DRAGON (LoCoMo paper), evidence recall"),
    Published("locomo", _T, "recall@5", 0.512, "a hybrid on a 250-question sample, evidence recall"),
    Published("locomo", _T, "recall@10", 0.588, "a hybrid on a 250-question sample, evidence recall"),
)
"""LoCoMo's published R@25 and R@50 (0.767, 0.827) are left out: the harness scores cutoffs 1, 5, 10."""


def published_for(dataset: str) -> list[Published]:
    return [p for p in PUBLISHED if p.dataset == dataset]
