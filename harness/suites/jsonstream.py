"""Streaming the items of a large JSON file with a nesting limit.

ijson's parser builds every event of a read buffer at once, each with its full prefix path, so its
memory grows with the square of the nesting depth within a buffer (a file nested 100,000 deep
exhausts the memory). The datasets nest a few levels: deeper is refused, and small buffers bound
what is built before the refusal (reading speed is the same).
"""

from __future__ import annotations

from collections.abc import Iterator

import ijson

from harness.suites.compressed import ByteStream

MAX_DEPTH = 64
"""Deepest nesting read; LongMemEval and LoCoMo records nest under 10 levels."""

BUFFER_BYTES = 4096
"""At most this many levels are parsed (prefixes of up to 5 bytes each) before the depth check runs."""

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


def items(handle: ByteStream, prefix: str, limit: int = MAX_DEPTH) -> Iterator[object]:
    """`ijson.items(handle, prefix)` (floats as float), refusing nesting deeper than `limit`."""
    return ijson.items(_bounded(ijson.parse(handle, buf_size=BUFFER_BYTES, use_float=True), limit), prefix)
