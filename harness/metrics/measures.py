"""Every ranked measure declared once: its name, cut-off, function, definition and column label.

Reports, tables, published-number comparisons and TREC exports take names and texts from these
records, so a measure cannot be computed one way and described another. `ir_measures` names the
same measure in ir_measures / trec_eval terms, which is how the TREC-file test checks our numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from harness.metrics.common import relevant_ids
from harness.metrics.ndcg import ndcg_at
from harness.metrics.precision import precision_at, set_precision, set_recall
from harness.metrics.recall import recall_all_at, recall_at, success_at
from harness.metrics.reciprocal_rank import reciprocal_rank

Ranking = Sequence[str]
Qrels = Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure at one cut-off (None: the whole ranking)."""

    name: str
    cutoff: int | None
    function: Callable[[Ranking, Qrels], float]
    definition: str
    label: str
    ir_measures: str | None
    """The same measure in ir_measures' notation (None: no trec_eval equivalent)."""

    def __call__(self, ranking: Ranking, qrels: Qrels) -> float:
        return self.function(ranking, qrels)


@dataclass(frozen=True, slots=True)
class _Family:
    """A measure at any cut-off k: its texts are templates over `{k}`."""

    function: Callable[[Ranking, Qrels, int], float]
    definition: str
    label: str
    ir_measures: str | None


_FAMILIES = {
    "precision": _Family(
        precision_at,
        "gold items in the top {k} divided by {k}, even when fewer came back (trec_eval P_{k})",
        "P@{k}",
        "P@{k}",
    ),
    "recall": _Family(
        recall_at, "fraction of the gold items found in the top {k} (trec_eval recall_{k})", "recall@{k}", "R@{k}"
    ),
    "recall_any": _Family(
        success_at,
        "1 if any gold item is in the top {k}, else 0 (trec_eval success.{k}; LongMemEval recall_any)",
        "R@{k} any",
        "Success@{k}",
    ),
    "recall_all": _Family(
        recall_all_at,
        "1 if every gold item is in the top {k}, else 0 (LongMemEval's official recall_all)",
        "R@{k} all",
        None,
    ),
    "ndcg": _Family(
        ndcg_at,
        "nDCG@{k} with linear gain and log2 discount as trec_eval computes it (ndcg_cut_{k}; binary gain: "
        "LongMemEval's ndcg_any)",
        "nDCG@{k}",
        "nDCG@{k}",
    ),
}


def _cut(function: Callable[[Ranking, Qrels, int], float], k: int, ranking: Ranking, qrels: Qrels) -> float:
    return function(ranking, qrels, k)


def _at(family: str, k: int) -> Measure:
    f = _FAMILIES[family]
    return Measure(
        f"{family}@{k}",
        k,
        partial(_cut, f.function, k),
        f.definition.format(k=k),
        f.label.format(k=k),
        f.ir_measures.format(k=k) if f.ir_measures else None,
    )


MRR = Measure(
    "mrr",
    None,
    reciprocal_rank,
    "1 / rank of the first gold item within the ranked list (cut at the retrieval depth), else 0 (trec_eval recip_rank)",
    "MRR",
    "RR",
)


def _set_precision(ranking: Ranking, qrels: Qrels) -> float:
    return set_precision(ranking, relevant_ids(qrels)) or 0.0


def _set_recall(ranking: Ranking, qrels: Qrels) -> float:
    return set_recall(ranking, relevant_ids(qrels)) or 0.0


def _ndcg_whole(ranking: Ranking, qrels: Qrels) -> float:
    return ndcg_at(ranking, qrels, max(len(ranking), len(qrels), 1))


SET_PRECISION = Measure(
    "precision",
    None,
    _set_precision,
    "expected ids among those returned / ids returned, 0 when nothing came back "
    "(trec_eval set_P; PrecisionMemBench precision)",
    "precision",
    "SetP",
)
SET_RECALL = Measure(
    "recall",
    None,
    _set_recall,
    "expected ids returned / expected ids (trec_eval set_recall; PrecisionMemBench recall)",
    "recall",
    "SetR",
)
NDCG = Measure(
    "ndcg",
    None,
    _ndcg_whole,
    "nDCG over the whole ranking with linear gain and log2 discount (trec_eval ndcg)",
    "nDCG",
    "nDCG",
)
SUITE_MEASURES = (SET_PRECISION, SET_RECALL, NDCG, MRR)
"""What suite cases report over their relevant tier, scored only where a case expects relevant ids."""

_NAME = re.compile(r"(?P<family>[a-z_]+)@(?P<k>[1-9][0-9]*)")


def measure(name: str) -> Measure:
    """The record of a measure name such as `recall_any@5`, `ndcg@10` or `mrr`."""
    if name == MRR.name:
        return MRR
    if (match := _NAME.fullmatch(name)) and match["family"] in _FAMILIES:
        return _at(match["family"], int(match["k"]))
    raise ValueError(f"unknown measure {name!r} (families: {', '.join(_FAMILIES)}, each @k; or mrr)")


def measures(names: Iterable[str]) -> tuple[Measure, ...]:
    return tuple(measure(name) for name in names)
