"""Reciprocal rank fusion (Cormack et al., SIGIR 2009): score = sum over lists of w / (k + rank),
w = 1 unless a list is given a weight (weighted RRF, as Popoto's hybrid)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.backends.base import Clause, Hit
from harness.metrics.evaluate import rank_key

RRF_K = 60
"""The fusion constant of the paper, and of the published hybrids we compare with."""


def ranks(ranking: Sequence[Hit | str]) -> dict[str, int]:
    """1-based rank of each id in a ranking of hits or ids."""
    return {(item if isinstance(item, str) else item.id): rank for rank, item in enumerate(ranking, start=1)}


def rrf(
    rankings: Mapping[str, Mapping[str, int]],
    limit: int,
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[Hit]:
    """Fuse named `{id: rank}` lists (ranks may tie); each list's share is an `rrf` clause
    named `<list>#<rank>`, and the result follows the one tie-break (score, then id)."""
    shares: dict[str, list[Clause]] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights[name]
        if weight == 0:
            continue
        for doc, rank in ranking.items():
            shares.setdefault(doc, []).append(Clause("rrf", f"{name}#{rank}", weight / (k + rank)))
    fused = [Hit(doc, sum(c.score for c in clauses), tuple(clauses)) for doc, clauses in shares.items()]
    return sorted(fused, key=lambda h: rank_key(h.score, h.id))[:limit]
