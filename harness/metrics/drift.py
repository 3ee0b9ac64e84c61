"""Session drift: how much noise a memory system injects per useful memory it surfaces."""

from __future__ import annotations


def drift_score(noise: int, relevant: int, pinned: int) -> float:
    """Tenure / PrecisionMemBench session drift score: noise / (relevant retrieved + pinned).

    0 is perfect and the score is unbounded above. By the benchmark's definition a session
    that surfaced no relevant and no pinned memory scores 0.0, even if it returned noise.
    """
    for name, count in (("noise", noise), ("relevant", relevant), ("pinned", pinned)):
        if count < 0:
            raise ValueError(f"{name} must be >= 0, got {count}")
    denominator = relevant + pinned
    if denominator == 0:
        return 0.0
    return noise / denominator
