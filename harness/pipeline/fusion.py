"""Reciprocal rank fusion (Cormack et al., SIGIR 2009): score = sum over lists of 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.backends.base import Clause, Hit
from harness.metrics.evaluate import rank_key

RRF_K = 60
"""The fusion constant of the paper, and of the published hybrids we compare with."""


def ranks(ranking: Sequence[Hit | str]) -> dict[str, int]:
    """1-based rank of each id in a ranking of hits or ids."""
    return {(item if isinstance(item, str) else item.id): rank for rank, item in enumerate(ranking, start=1)}


def rrf(rankings: Mapping[str, Mapping[str, int]], limit: int, k: int = RRF_K) -> list[Hit]:
    """Fuse named `{id: rank}` lists (ranks may tie); each list's share is an `rrf` clause
    named `<list>#<rank>`, and the result follows the one tie-break (score, then id)."""
    shares: dict[str, list[Clause]] = {}
    for name, ranking in rankings.items():
        for doc, rank in ranking.items():
            shares.setdefault(doc, []).append(Clause("rrf", f"{name}#{rank}", 1.0 / (k + rank)))
    fused = [Hit(doc, sum(c.score for c in clauses), tuple(clauses)) for doc, clauses in shares.items()]
    return sorted(fused, key=lambda h: rank_key(h.score, h.id))[:limit]
