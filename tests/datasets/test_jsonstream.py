"""The nesting limit is checked on raw bytes, buffer by buffer: strings (brackets, quotes and
backslashes inside them) and buffer edges anywhere must not change the depth it sees."""

from __future__ import annotations

import io
import json
import tracemalloc

import ijson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.suites.jsonstream import DepthLimited, items

_TRICKY = st.text(alphabet='ab[]{}"\\\n\u00e9', max_size=8)
_JSON = st.recursive(
    st.none() | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TRICKY, inner, max_size=3),
    max_leaves=20,
)


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _reads_through(data: bytes, size: int, limit: int) -> bool:
    stream = DepthLimited(io.BytesIO(data), limit)
    try:
        while stream.read(size):
            pass
    except ijson.JSONError:
        return False
    return True


@given(_JSON, st.integers(min_value=1, max_value=7))
def test_the_depth_seen_is_the_nesting_whatever_the_strings_and_buffer_edges(value: object, size: int) -> None:
    data = json.dumps(value, ensure_ascii=False).encode()
    depth = _depth(value)
    assert _reads_through(data, size, depth)
    assert depth == 0 or not _reads_through(data, size, depth - 1)


def test_a_file_nested_100000_deep_is_refused_before_the_parser_builds_it() -> None:
    tracemalloc.start()
    with pytest.raises(ijson.JSONError, match="nested deeper than 64 levels"):
        list(items(io.BytesIO(b"[" * 100_000 + b"]" * 100_000), "item"))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 10 * 2**20


def test_items_read_as_ijson_reads_them() -> None:
    records = [{"id": "q1", "turns": [{"content": 'a "quoted" [bracket]', "score": 0.5}]}, {"id": "q2"}]
    assert list(items(io.BytesIO(json.dumps(records).encode()), "item")) == records
