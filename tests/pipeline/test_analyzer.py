"""The analyzer's ASCII fast path gives exactly the tokens of the Unicode expression."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from harness.text import content_terms, content_text, tokenize

_REFERENCE = re.compile(r"[^\W_]+")


def _reference(text: str) -> list[str]:
    return _REFERENCE.findall(unicodedata.normalize("NFKC", text).lower())


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_ascii_text_tokenizes_as_the_expression_does(text: str) -> None:
    assert tokenize(text) == _reference(text)


def test_every_ascii_character_is_split_or_kept_as_the_expression_says() -> None:
    every = "".join(chr(c) for c in range(128))
    letters = "abcdefghijklmnopqrstuvwxyz"
    assert tokenize(f"x{every}y") == _reference(f"x{every}y") == ["x", "0123456789", letters, letters, "y"]


def test_text_with_other_characters_keeps_the_unicode_rules() -> None:
    assert tokenize("Caf\u00e9\u2019s \uff21\uff22\uff23 snake_case") == ["caf\u00e9", "s", "abc", "snake", "case"]


_PIECES = ["the", "The", "an", "x_1", " ", "\t", "caf\u00e9", "IT'S", "9", "-"]


@given(st.lists(st.sampled_from(_PIECES)).map("".join))
def test_content_text_is_the_content_terms_single_spaced(text: str) -> None:
    assert content_text(text) == " ".join(content_terms(text))
