"""The precision-first relevance rule: a phrase of the retrieval surface must occur in the query.

A query word matches a phrase word exactly, or fuzzily at one edit (optimal string alignment:
insert, delete, substitute, adjacent swap) when both are long enough and share a prefix: the
prefix guard keeps `rust` from `bust`, and a query word no longer than the prefix has no room
for an edit, so it matches exactly only (Lucene's fuzzy query does the same). A minimum length
(the built-in rules: 5) also keeps short words such as `k8s` exact; Tenure's rules have none.
Prefixes alone never match (`type` is not `typescript`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass


def within_one_edit(a: str, b: str) -> bool:
    """Optimal string alignment distance <= 1, without building the full matrix."""
    if a == b:
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diffs = [i for i in range(la) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        i, j = diffs[0], diffs[-1]
        return len(diffs) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long_ = (a, b) if la < lb else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]


@dataclass(frozen=True)
class WordMatcher:
    min_length: int
    prefix: int
    fuzzy_multiword: bool = True
    """False: only a one-word phrase matches fuzzily; longer ones match word for word exactly."""

    def may_be_fuzzy(self, query_word: str) -> bool:
        """A query word all prefix has no room for an edit; a short one is exact by the rules."""
        return len(query_word) > self.prefix and len(query_word) >= self.min_length

    def fuzzy(self, query_word: str, word: str) -> bool:
        return (
            query_word != word
            and self.may_be_fuzzy(query_word)
            and len(word) >= self.min_length
            and query_word[: self.prefix] == word[: self.prefix]
            and within_one_edit(query_word, word)
        )

    def matches(self, query_word: str, word: str) -> bool:
        return query_word == word or self.fuzzy(query_word, word)

    def expand(self, query_words: Iterable[str], vocabulary: Set[str]) -> list[str]:
        """Engine terms for a query: each word in the vocabulary, plus its fuzzy neighbours.
        The vocabulary is the caller's own set, used as it is (no per-query copy)."""
        terms: dict[str, None] = {}
        for word in query_words:
            if word in vocabulary:
                terms[word] = None
            if self.may_be_fuzzy(word):
                for candidate in vocabulary:
                    if self.fuzzy(word, candidate):
                        terms[candidate] = None
        return list(terms)

    def occurs(self, phrase: Sequence[str], query: Sequence[str]) -> bool:
        """True when the phrase's words appear contiguously, in order, in the query words."""
        n = len(phrase)
        if n == 0 or n > len(query):
            return False
        match = self.matches if n == 1 or self.fuzzy_multiword else str.__eq__
        return any(all(match(query[start + k], phrase[k]) for k in range(n)) for start in range(len(query) - n + 1))
