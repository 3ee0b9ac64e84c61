"""Fusing rankings: reciprocal rank fusion (Cormack et al., SIGIR 2009): score = sum over lists of
w / (k + rank), w = 1 unless a list is given a weight (weighted RRF, as Popoto's hybrid); and the
convex combination of min-max normalised scores (Bruch et al., TOIS 2023), which keeps how far
apart a list's scores are, where RRF keeps only their order."""

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


def min_max(hits: Sequence[Hit]) -> dict[str, float]:
    """Each hit's score scaled to [0, 1] over its list (1 for all when the scores are equal)."""
    if not hits:
        return {}
    low, high = min(h.score for h in hits), max(h.score for h in hits)
    span = high - low
    return {h.id: (h.score - low) / span if span > 0 else 1.0 for h in hits}


def convex(rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float], limit: int) -> list[Hit]:
    """Fuse named scored lists: sum over lists of weight x min-max normalised score, a document absent
    from a list getting 0 from it (its list's minimum). A list weighted 0 is left out, so the others
    decide alone; each list's share is a `convex` clause named `<list>#<rank>`, and the result
    follows the one tie-break (score, then id)."""
    shares: dict[str, list[Clause]] = {}
    for name, hits in rankings.items():
        weight = weights[name]
        if weight == 0:
            continue
        scaled = min_max(hits)
        for rank, hit in enumerate(hits, start=1):
            shares.setdefault(hit.id, []).append(Clause("convex", f"{name}#{rank}", weight * scaled[hit.id]))
    fused = [Hit(doc, sum(c.score for c in clauses), tuple(clauses)) for doc, clauses in shares.items()]
    return sorted(fused, key=lambda h: rank_key(h.score, h.id))[:limit]
