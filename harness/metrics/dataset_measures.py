"""The measures dataset runs report, taken from the metric records, and one question's scores."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from harness.metrics import Measure, measure, measures

CUTOFFS = (1, 5, 10)

_HEADLINE = measures((*(f"recall_any@{k}" for k in CUTOFFS), *(f"recall_all@{k}" for k in CUTOFFS), "ndcg@10", "mrr"))
HEADLINE = tuple(m.name for m in _HEADLINE)
"""The measures every table shows, in column order."""

MEASURES = (*_HEADLINE[:-2], *measures(f"recall@{k}" for k in CUTOFFS), *_HEADLINE[-2:])
"""Every measure scored per question: the headline ones and TREC recall@k."""


def label(metric: str) -> str:
    """A short column heading: `recall_any@5` -> `R@5 any`, `mrr` -> `MRR`."""
    return measure(metric).label


def definition_of(metric: str) -> str:
    """The definition of a measure name such as `recall_any@5` or `mrr`."""
    return measure(metric).definition


def definitions(chosen: Sequence[Measure] = MEASURES) -> dict[str, str]:
    return {m.name: m.definition for m in chosen}


def metric_names() -> list[str]:
    return [m.name for m in MEASURES]


def score(ranking: Sequence[str], gold: Collection[str]) -> dict[str, float]:
    """Every reported measure for one ranking against a non-empty gold set."""
    qrels = dict.fromkeys(gold, 1)
    return {m.name: m(ranking, qrels) for m in MEASURES}
