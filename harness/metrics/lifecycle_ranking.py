"""Per-query ranking scores of lifecycle scenarios, as the Mnemonic benchmark defines them
(peer-formats.md §3.3), beside trec_eval's P@k where the two differ.

k = min(cutoff, |returned|). Mnemonic's P@k = hits / k; trec_eval's P@cutoff = hits / cutoff
(they differ when fewer than `cutoff` memories come back). R@k = hits / |expected|; MRR = 1 / rank
of the first hit (0 without one); nDCG with binary gains over the top k, the ideal ranking
holding min(|expected|, k) hits. With `fixed_cutoff` (Mnemonic's scoreQuery at 8ecf3ab) k is
the cutoff however few memories come back: P@k = hits / cutoff, the ideal holds
min(|expected|, cutoff) hits. For concept queries a returned memory is a hit when it carries any
expected concept, and |expected| is the number of expected concepts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RankingScores:
    precision: float
    """Mnemonic P@k: hits over k = min(cutoff, returned)."""
    trec_precision: float
    """trec_eval P@cutoff: hits over the cutoff."""
    recall: float
    mrr: float
    ndcg: float


def _discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def ranking_scores(hits: Sequence[bool], expected: int, cutoff: int, fixed_cutoff: bool = False) -> RankingScores:
    """Scores of one ranking, `hits[i]` saying whether the i-th returned item is relevant."""
    if cutoff < 1:
        raise ValueError("cutoff must be at least 1")
    top = list(hits[:cutoff])
    found = sum(top)
    first = next((rank for rank, hit in enumerate(top, 1) if hit), None)
    k = cutoff if fixed_cutoff else len(top)
    ideal = sum(_discount(rank) for rank in range(1, min(expected, k) + 1))
    dcg = sum(_discount(rank) for rank, hit in enumerate(top, 1) if hit)
    return RankingScores(
        precision=found / k if k else 0.0,
        trec_precision=found / cutoff,
        recall=found / expected if expected else 0.0,
        mrr=1.0 / first if first else 0.0,
        ndcg=dcg / ideal if ideal else 0.0,
    )


def id_hits(returned: Sequence[str], expected: Sequence[str]) -> list[bool]:
    wanted = set(expected)
    return [memory_id in wanted for memory_id in returned]


def concept_hits(returned_concepts: Sequence[Sequence[str]], expected: Sequence[str]) -> list[bool]:
    """A returned memory hits when any of its concepts is expected, case-insensitively."""
    wanted = {c.casefold() for c in expected}
    return [any(c.casefold() in wanted for c in concepts) for concepts in returned_concepts]
