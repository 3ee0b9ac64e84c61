"""A deterministic test embedder whose cosines never tie, so every engine ranks alike."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from tests.pipeline.test_invariants import HashingEmbedder


class SeededEmbedder(HashingEmbedder):
    """Bag-of-words vectors plus a component seeded by the text itself, so no two records' cosines
    tie: a tie would be broken by float32 noise, which differs between engines (a real encoder's
    vectors do not tie either)."""

    dimensions = 256

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        words = super().embed(texts)
        seeded = np.stack(
            [
                np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:16], 16)).normal(size=256)
                for t in texts
            ]
        )
        out = words + 0.05 * seeded
        return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)
