"""Pass-type classification rules."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from harness.metrics import PassType, classify


@pytest.mark.parametrize(
    ("expected_relevant", "query", "max_beliefs", "pinned_count", "want"),
    [
        # A non-empty expected set is active, even under conditions that are trivial otherwise.
        (["m1"], "what editor?", None, 0, PassType.ACTIVE),
        (["m1"], "", 0, 3, PassType.ACTIVE),
        # Nothing expected, nothing forced: the case passed on its other assertions.
        ([], "what editor?", None, 2, PassType.STRUCTURAL),
        (None, "what editor?", 5, 2, PassType.STRUCTURAL),
        ([], "what editor?", 3, 2, PassType.STRUCTURAL),  # one slot left for a relevant memory
        # Nothing expected and the outcome forced.
        ([], "", None, 0, PassType.TRIVIALLY_EMPTY),  # empty query
        (None, "  \n", None, 0, PassType.TRIVIALLY_EMPTY),  # blank query
        ([], "what editor?", 0, 0, PassType.TRIVIALLY_EMPTY),  # max_beliefs == 0
        ([], "what editor?", 2, 2, PassType.TRIVIALLY_EMPTY),  # pinned fill every slot
        ([], "what editor?", 1, 2, PassType.TRIVIALLY_EMPTY),  # more pinned than slots
    ],
)
def test_classify(
    expected_relevant: Sequence[str] | None,
    query: str,
    max_beliefs: int | None,
    pinned_count: int,
    want: PassType,
) -> None:
    got = classify(
        expected_relevant=expected_relevant,
        query=query,
        max_beliefs=max_beliefs,
        pinned_count=pinned_count,
    )
    assert got is want


def test_values_are_stable_strings() -> None:
    # Reports and stored results use these strings.
    assert [p.value for p in PassType] == ["active", "structural", "trivially_empty"]
    assert PassType("trivially_empty") is PassType.TRIVIALLY_EMPTY


def test_arguments_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        classify(["m1"], "q", None, 0)  # type: ignore[misc]


@pytest.mark.parametrize(("max_beliefs", "pinned_count"), [(-1, 0), (None, -1)])
def test_rejects_negative_counts(max_beliefs: int | None, pinned_count: int) -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        classify(expected_relevant=[], query="q", max_beliefs=max_beliefs, pinned_count=pinned_count)
