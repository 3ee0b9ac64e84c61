"""One analyzer for every backend, so that all engines index and query the same terms."""

from __future__ import annotations

import re
import unicodedata

_TOKEN = re.compile(r"[^\W_]+")

STOPWORDS = frozenset(
    """a an and are as at be but by can could did do does for from had has have how i if in into is it
    its me my no not of on or our should so than that the their them then there these they this to
    too was we were what when where which while who why will with would you your""".split()
)


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens; underscores split, so `typescript_strict` reads as two words."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


def content_terms(text: str) -> list[str]:
    """Tokens that carry meaning on their own (stopwords dropped), for bag-of-words fields."""
    return [t for t in tokenize(text) if t not in STOPWORDS]
