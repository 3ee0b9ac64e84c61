"""Reciprocal rank fusion (Cormack et al., SIGIR 2009): score = sum of 1 / (k + rank)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from harness.backends.base import Clause, Hit, ranked


def rrf(lists: dict[str, Sequence[Hit]], k: int, limit: int) -> list[Hit]:
    """Fuse named rankings; each list's share is kept as an `rrf` clause naming list and rank."""
    shares: dict[str, list[Clause]] = defaultdict(list)
    for name, hits in lists.items():
        for rank, hit in enumerate(hits, start=1):
            shares[hit.id].append(Clause("rrf", f"{name}#{rank}", 1.0 / (k + rank)))
    fused = [Hit(doc_id, sum(c.score for c in clauses), tuple(clauses)) for doc_id, clauses in shares.items()]
    return ranked(fused, limit)
