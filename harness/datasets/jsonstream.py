"""Streaming the items of a large JSON file with a nesting limit.

ijson builds each item in memory and its cost grows with the square of the nesting depth (a file
nested 100,000 deep exhausts the memory); the datasets nest a few levels, so deeper is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

import ijson

MAX_DEPTH = 64
"""Deepest nesting read; LongMemEval and LoCoMo records nest under 10 levels."""

_OPEN = frozenset({"start_map", "start_array"})
_CLOSE = frozenset({"end_map", "end_array"})


def _bounded(events: Iterator[tuple[str, str, object]], limit: int) -> Iterator[tuple[str, str, object]]:
    depth = 0
    for event in events:
        if event[1] in _OPEN:
            depth += 1
            if depth > limit:
                raise ijson.JSONError(f"nested deeper than {limit} levels")
        elif event[1] in _CLOSE:
            depth -= 1
        yield event


def items(handle: BinaryIO, prefix: str, limit: int = MAX_DEPTH) -> Iterator[object]:
    """`ijson.items(handle, prefix)` (floats as float), refusing nesting deeper than `limit`."""
    return ijson.items(_bounded(ijson.parse(handle, use_float=True), limit), prefix)
