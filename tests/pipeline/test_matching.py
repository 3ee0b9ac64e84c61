"""The relevance rule's word matching, checked against a textbook edit distance."""

from hypothesis import given
from hypothesis import strategies as st

from harness.pipeline.matching import WordMatcher, within_one_edit

MATCHER = WordMatcher(min_length=5, prefix=2)


def osa_distance(a: str, b: str) -> int:
    """Optimal string alignment distance by dynamic programming (the reference)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


words = st.text(alphabet="abcde", min_size=0, max_size=8)


@given(words, words)
def test_within_one_edit_agrees_with_dynamic_programming(a: str, b: str) -> None:
    assert within_one_edit(a, b) == (osa_distance(a, b) <= 1)


@given(words, words)
def test_within_one_edit_is_symmetric(a: str, b: str) -> None:
    assert within_one_edit(a, b) == within_one_edit(b, a)


def test_fuzzy_rules() -> None:
    assert MATCHER.matches("postgress", "postgres")  # insertion
    assert MATCHER.matches("kubernets", "kubernetes")  # deletion
    assert MATCHER.matches("pyhton", "python")  # adjacent swap
    assert not MATCHER.matches("pstgres", "postgres")  # one edit, but the prefix guard differs
    assert not MATCHER.matches("k8z", "k8s")  # short words are exact only
    assert not MATCHER.matches("lena", "lina")  # 4 letters: exact only
    assert not MATCHER.matches("type", "typescript")  # a prefix is not a match
    assert not MATCHER.matches("postgrs", "postgresql")  # two edits


def test_phrase_must_occur_contiguously_and_in_order() -> None:
    assert MATCHER.occurs(("strict", "mode"), ["use", "strict", "mode", "please"])
    assert MATCHER.occurs(("strict", "mode"), ["use", "strict", "modes"]) is False  # 'modes' vs 'mode': 4 letters
    assert not MATCHER.occurs(("strict", "mode"), ["mode", "strict"])
    assert not MATCHER.occurs(("strict", "mode"), ["strict", "typing", "mode"])
    assert not MATCHER.occurs((), ["anything"])


def test_expand_adds_fuzzy_neighbours_from_the_vocabulary_only() -> None:
    vocab = {"postgres", "redis", "kubernetes"}
    assert MATCHER.expand(["postgress", "and", "redis"], vocab) == ["postgres", "redis"]
    assert MATCHER.expand(["mysql"], vocab) == []
