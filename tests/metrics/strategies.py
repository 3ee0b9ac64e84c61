"""Hypothesis strategies for one query's ranking and graded judgements over a small doc pool.

A small pool makes overlaps between the ranking and the qrels (and unjudged hits) common.
"""

from __future__ import annotations

from hypothesis import strategies as st

DOC_POOL = [f"d{i}" for i in range(12)]
MAX_K = len(DOC_POOL) + 3  # cutoffs past the end of any ranking are exercised too

rankings = st.lists(st.sampled_from(DOC_POOL), unique=True, max_size=len(DOC_POOL))
"""Doc ids best first, no duplicates, possibly empty."""

qrels = st.dictionaries(st.sampled_from(DOC_POOL), st.integers(min_value=0, max_value=3))
"""Graded judgements 0-3; grade 0 is judged non-relevant, and the dict may be empty."""

cutoffs = st.integers(min_value=1, max_value=MAX_K)


def has_relevant(judgements: dict[str, int]) -> bool:
    """Whether any doc has grade >= 1, the precondition for recall-family metrics."""
    return any(grade >= 1 for grade in judgements.values())
