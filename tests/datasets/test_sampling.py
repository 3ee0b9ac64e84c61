"""Question sampling: head, stride, stratified by category, reproducible from the seed."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.models.haystack import QuestionRef
from harness.suites.sampling import SampleMethod, select


def _refs(categories: list[str]) -> list[QuestionRef]:
    return [QuestionRef(i, f"q{i}", c) for i, c in enumerate(categories)]


REFS = _refs(["a"] * 60 + ["b"] * 30 + ["c"] * 10)


def test_no_limit_means_every_question() -> None:
    assert select(REFS, None, SampleMethod.STRATIFIED, 0) is None


def test_head_takes_the_first_and_needs_no_scan() -> None:
    assert select(None, 3, SampleMethod.HEAD, 0) == {0, 1, 2}
    assert select(REFS, 3, SampleMethod.HEAD, 0) == {0, 1, 2}


def test_stride_spreads_evenly() -> None:
    assert select(REFS, 4, SampleMethod.STRIDE, 0) == {0, 25, 50, 75}


def test_stratified_keeps_category_shares_and_follows_the_seed() -> None:
    chosen = select(REFS, 10, SampleMethod.STRATIFIED, 7)
    assert chosen is not None
    assert Counter(REFS[p].category for p in chosen) == {"a": 6, "b": 3, "c": 1}
    assert select(REFS, 10, SampleMethod.STRATIFIED, 7) == chosen
    assert select(REFS, 10, SampleMethod.STRATIFIED, 8) != chosen


def test_a_limit_past_the_end_takes_everything() -> None:
    assert select(REFS, 500, SampleMethod.STRIDE, 0) == set(range(100))


def test_spread_samples_need_the_scan() -> None:
    with pytest.raises(ValueError, match="needs the scanned questions"):
        select(None, 3, SampleMethod.STRATIFIED, 0)


@given(
    categories=st.lists(st.sampled_from("abcde"), min_size=1, max_size=80),
    limit=st.integers(min_value=1, max_value=100),
    method=st.sampled_from(list(SampleMethod)),
    seed=st.integers(0, 2**16),
)
def test_every_method_returns_min_of_limit_and_size_distinct_positions(
    categories: list[str], limit: int, method: SampleMethod, seed: int
) -> None:
    refs = _refs(categories)
    chosen = select(refs, limit, method, seed)
    assert chosen is not None
    assert len(chosen) == min(limit, len(refs))
    assert chosen <= set(range(len(refs)))
