"""nDCG@k as trec_eval computes it, so graded scores match pytrec_eval, BEIR and MTEB.

Gain is the grade itself (Järvelin–Kekäläinen), not Burges' 2^grade - 1: the two agree on
binary judgements but differ on graded ones. Non-positive grades carry no gain.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from harness.metrics.common import top_k


def _dcg(gains: Iterable[int]) -> float:
    """Sum of gain / log2(rank + 1) over ranks 1, 2, ..."""
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def ndcg_at(ranking: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """DCG of the top k over the ideal DCG (all judged grades, best first, cut at k); 0.0 if no gain."""
    gains = [max(qrels.get(doc, 0), 0) for doc in top_k(ranking, k)]
    ideal = _dcg(sorted((grade for grade in qrels.values() if grade > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return _dcg(gains) / ideal
