"""Near-duplicate candidates: pairs of memories similar both in embedding and in wording.

Texts never change during a scenario, so the pairs are found once, before the first cycle;
consolidation merges those whose two memories are still live.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from harness.text import content_terms


@dataclass(frozen=True, slots=True)
class Pair:
    first: str
    second: str
    cosine: float
    jaccard: float


def jaccard(a: str, b: str) -> float:
    """Shared distinct content words over all distinct content words of the two texts."""
    left, right = set(content_terms(a)), set(content_terms(b))
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def duplicate_pairs(
    texts: Mapping[str, str], vectors: Mapping[str, np.ndarray], min_cosine: float, min_jaccard: float
) -> list[Pair]:
    """Every pair at or above both thresholds, most similar first (cosine, then Jaccard, then ids).
    Cosines are rounded to 6 decimals: a pair's fate must not hang on float noise."""
    ids: Sequence[str] = sorted(texts)
    pairs = []
    for i, first in enumerate(ids):
        for second in ids[i + 1 :]:
            cosine = round(float(np.dot(vectors[first], vectors[second])), 6)
            if cosine < min_cosine:
                continue
            lexical = jaccard(texts[first], texts[second])
            if lexical >= min_jaccard:
                pairs.append(Pair(first, second, cosine, lexical))
    return sorted(pairs, key=lambda p: (-p.cosine, -p.jaccard, p.first, p.second))
