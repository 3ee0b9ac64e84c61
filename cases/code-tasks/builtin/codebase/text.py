"""One analyzer for every backend, so that all engines index and query the same terms."""

from __future__ import annotations

import re
import unicodedata
from itertools import filterfalse

_TOKEN = re.compile(r"[^\W_]+")

_ASCII_WORDS = bytes(
    (b + 32 if 65 <= b <= 90 else b) if chr(b).isascii() and chr(b).isalnum() else 32 for b in range(256)
)
"""ASCII letters lowercased, digits kept, every other byte a space: `tokenize` on ASCII text in C."""

STOPWORDS = frozenset(
    """a an and are as at be but by can could did do does for from had has have how i if in into is it
    its me my no not of on or our should so than that the their them then there these they this to
    too was we were what when where which while who why will with would you your""".split()
)


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens; underscores split, so `typescript_strict` reads as two words.

    ASCII text (NFKC leaves it as it is) is split by a byte table, the same tokens as the
    expression, several times faster on the long turns of the datasets."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


def content_terms(text: str) -> list[str]:
    """Tokens that carry meaning on their own (stopwords dropped), for bag-of-words fields."""
    return list(filterfalse(STOPWORDS.__contains__, tokenize(text)))


_STOPWORD_BYTES = frozenset(w.encode("ascii") for w in STOPWORDS)


def content_text(text: str) -> str:
    """`content_terms` joined by single spaces, the form every index stores; ASCII text never
    becomes Python strings per token (bytes throughout, decoded once)."""
    if text.isascii():
        words = text.encode("ascii").translate(_ASCII_WORDS).split()
        return b" ".join(filterfalse(_STOPWORD_BYTES.__contains__, words)).decode("ascii")
    return " ".join(content_terms(text))


def content_texts(texts: list[str]) -> list[str]:
    """`content_text` of each text (one call per batch, for a worker process)."""
    return [content_text(text) for text in texts]
