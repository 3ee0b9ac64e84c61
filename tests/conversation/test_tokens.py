"""Token counts are cl100k_base's: the ids tiktoken's own documentation gives for that encoding."""

from __future__ import annotations

import tiktoken

from harness import tokens


def test_cl100k_base_ids_of_documented_examples() -> None:
    encoding = tiktoken.get_encoding(tokens.ENCODING)
    # OpenAI cookbook, "How to count tokens with tiktoken" (cl100k_base)
    assert encoding.encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert encoding.encode("hello world") == [15339, 1917]
    assert encoding.n_vocab == 100277


def test_count_and_truncate() -> None:
    assert tokens.count("tiktoken is great!") == 6
    assert tokens.count("") == 0
    text = "The harbour bar has 0.9 m of water at the lowest tide. " * 20
    cut = tokens.truncate(text, 25)
    assert text.startswith(cut)
    assert tokens.count(cut) <= 25
    assert tokens.count(cut) >= 24
    assert tokens.truncate("short", 25) == "short"
    assert tokens.truncate("anything", 0) == ""


def test_truncate_never_splits_a_character_into_garbage() -> None:
    text = "naïve café 🌊🌊🌊 déjà vu " * 10
    for limit in range(1, 40):
        cut = tokens.truncate(text, limit)
        assert text.startswith(cut)
        assert "\ufffd" not in cut
        assert tokens.count(cut) <= limit
