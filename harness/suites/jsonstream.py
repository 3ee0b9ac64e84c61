"""Streaming the items of a large JSON file with a nesting limit.

ijson's parser builds every event of a read buffer at once, each with its full prefix path, so its
memory grows with the square of the nesting depth within a buffer (a file nested 100,000 deep
exhausts the memory). The datasets nest a few levels: deeper is refused. The depth is checked on
the raw bytes of each buffer, in NumPy, before the parser sees them, so the parser never holds a
deep buffer and its events stay in C: a check per event in Python cost more than the parsing.
"""

from __future__ import annotations

from collections.abc import Iterator

import ijson
import numpy as np

from harness.suites.compressed import ByteStream

MAX_DEPTH = 64
"""Deepest nesting read; LongMemEval and LoCoMo records nest under 10 levels."""

BUFFER_BYTES = 64 * 1024
"""Bytes handed to the parser at a time, each buffer checked before it is parsed."""

_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPEN, _CLOSE = ord("{"), ord("}")
"""`[` and `]` are these with bit 5 clear: `byte | 0x20` finds both kinds in one pass."""


class DepthLimited:
    """A binary stream whose reads fail (`ijson.JSONError`) on bytes nested deeper than `limit`.

    Per buffer, in NumPy: a quote ends or opens a string unless an odd run of backslashes precedes
    it; a bracket nests when an even number of such quotes precede it (counting from outside a
    string). What a buffer leaves open (a string, a backslash run) carries into the next."""

    def __init__(self, handle: ByteStream, limit: int = MAX_DEPTH):
        self._handle = handle
        self._limit = limit
        self._depth = 0
        self._in_string = False
        self._backslashes = 0
        """Length of the backslash run that ended the bytes read so far."""

    def read(self, size: int = -1) -> bytes:
        chunk = self._handle.read(size)
        if chunk:
            self._check(np.frombuffer(chunk, dtype=np.uint8))
        return chunk

    def _check(self, data: np.ndarray) -> None:
        quotes = np.flatnonzero(data == _QUOTE)
        real = quotes[self._unescaped(data, quotes)]
        folded = data | 0x20
        opens, closes = folded == _OPEN, folded == _CLOSE
        brackets = np.flatnonzero(opens | closes)
        outside = brackets[(np.searchsorted(real, brackets) + self._in_string) % 2 == 0]
        if len(outside):
            depths = self._depth + np.cumsum(np.where(opens[outside], 1, -1))
            if int(depths.max()) > self._limit:
                raise ijson.JSONError(f"nested deeper than {self._limit} levels")
            self._depth = int(depths[-1])
        self._in_string = self._in_string != (len(real) % 2 == 1)

    def _unescaped(self, data: np.ndarray, quotes: np.ndarray) -> np.ndarray:
        """Which quotes an even run of backslashes (often none) precedes; keeps the run ending the buffer."""
        slashes = np.flatnonzero(data == _BACKSLASH)
        ran = self._backslashes
        self._backslashes = 0
        if not len(slashes):
            return (quotes > 0) | (ran % 2 == 0)
        starts = np.ones(len(slashes), dtype=bool)
        starts[1:] = slashes[1:] != slashes[:-1] + 1
        first = np.maximum.accumulate(np.where(starts, np.arange(len(slashes)), 0))
        last = np.searchsorted(slashes, quotes - 1)  # the backslash just before each quote, if any
        found = np.minimum(last, len(slashes) - 1)
        after_slash = slashes[found] == quotes - 1
        runs = np.where(after_slash, found - first[found] + 1, 0)
        begun = (quotes == 0) | (after_slash & (slashes[first[found]] == 0))  # runs begun in the last buffer
        runs += np.where(begun, ran, 0)
        if slashes[-1] == len(data) - 1:
            run = len(slashes) - int(first[-1])
            self._backslashes = run + ran if slashes[first[-1]] == 0 else run
        return runs % 2 == 0


def items(handle: ByteStream, prefix: str, limit: int = MAX_DEPTH) -> Iterator[object]:
    """`ijson.items(handle, prefix)` (floats as float), refusing nesting deeper than `limit`."""
    return ijson.items(DepthLimited(handle, limit), prefix, buf_size=BUFFER_BYTES, use_float=True)


def parse(handle: ByteStream, limit: int = MAX_DEPTH) -> Iterator[tuple[str, str, object]]:
    """`ijson.parse(handle)` events (prefix, event, value), refusing nesting deeper than `limit`."""
    return ijson.parse(DepthLimited(handle, limit), buf_size=BUFFER_BYTES, use_float=True)
