"""Streaming the items of a large JSON file with a nesting limit.

ijson's parser builds every event of a read buffer at once, each with its full prefix path, so its
memory grows with the square of the nesting depth within a buffer (a file nested 100,000 deep
exhausts the memory). The datasets nest a few levels: deeper is refused. The depth is checked on
the raw bytes of each buffer before the parser sees them (strings skipped with one regular
expression, the brackets left over summed by NumPy), so the parser never holds a deep buffer and
its events stay in C: a check per event in Python cost more than the parsing itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO

import ijson
import numpy as np

MAX_DEPTH = 64
"""Deepest nesting read; LongMemEval and LoCoMo records nest under 10 levels."""

BUFFER_BYTES = 64 * 1024
"""Bytes handed to the parser at a time, each buffer checked before it is parsed."""

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
"""A whole JSON string (escapes included); brackets inside strings are text, not nesting."""

_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
"""The rest of a string begun in an earlier buffer, up to its closing quote (not included)."""

_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class DepthLimited:
    """A binary stream whose reads fail (`ijson.JSONError`) on bytes nested deeper than `limit`."""

    def __init__(self, handle: BinaryIO, limit: int = MAX_DEPTH):
        self._handle = handle
        self._limit = limit
        self._depth = 0
        self._in_string = False
        self._escaped = False
        """The last buffer ended inside a string, on a backslash that escapes the next byte."""

    def read(self, size: int = -1) -> bytes:
        chunk = self._handle.read(size)
        self._check(chunk)
        return chunk

    def _check(self, chunk: bytes) -> None:
        if not chunk:
            return
        start = self._string_end(chunk) if self._in_string else 0
        if start is None:
            return
        structure = _STRING.sub(b"", chunk[start:])
        unterminated = structure.find(b'"')  # every whole string is gone: a quote left opens the last one
        if unterminated >= 0:
            structure = structure[:unterminated]
            trailing = len(chunk) - len(chunk.rstrip(b"\\"))  # after the opening quote, so aligned
            self._in_string, self._escaped = True, trailing % 2 == 1
        steps = np.frombuffer(structure.translate(_STEPS, _NOT_BRACKETS), dtype=np.int8)
        if not len(steps):
            return
        depths = self._depth + np.cumsum(steps, dtype=np.int64)
        if int(depths.max()) > self._limit:
            raise ijson.JSONError(f"nested deeper than {self._limit} levels")
        self._depth = int(depths[-1])

    def _string_end(self, chunk: bytes) -> int | None:
        """Where structure resumes in a buffer that begins inside a string (None: it never does)."""
        begin = 1 if self._escaped else 0
        end = _STRING_REST.match(chunk, begin).end()  # type: ignore[union-attr]  # matches the empty string
        if end < len(chunk) and chunk[end : end + 1] == b'"':
            self._in_string = self._escaped = False
            return end + 1
        self._escaped = end < len(chunk)  # the other place it stops: a backslash ending the buffer
        return None


def items(handle: BinaryIO, prefix: str, limit: int = MAX_DEPTH) -> Iterator[object]:
    """`ijson.items(handle, prefix)` (floats as float), refusing nesting deeper than `limit`."""
    return ijson.items(DepthLimited(handle, limit), prefix, buf_size=BUFFER_BYTES, use_float=True)


def parse(handle: BinaryIO, limit: int = MAX_DEPTH) -> Iterator[tuple[str, str, object]]:
    """`ijson.parse(handle)` events (prefix, event, value), refusing nesting deeper than `limit`."""
    return ijson.parse(DepthLimited(handle, limit), buf_size=BUFFER_BYTES, use_float=True)
