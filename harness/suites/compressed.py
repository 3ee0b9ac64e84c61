"""Dataset files read as they are published: plain JSON, or compressed with gzip, xz or zstandard.

The public files are large (LongMemEval-S 257 MB, LongMemEval-M several GB) and usually shipped
compressed; decompressing them first doubles the disk they take. Each format is read as a stream,
so a compressed file costs no more memory than the plain one.
"""

from __future__ import annotations

import gzip
import lzma
import zlib
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Protocol, Self

import zstandard


class ByteStream(Protocol):
    """What reading a dataset needs of an open file, plain or decompressing: bytes, and a `with` that closes it."""

    def read(self, size: int = -1, /) -> bytes: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None, /
    ) -> None: ...


def _zstd(path: Path) -> ByteStream:
    stream: ByteStream = zstandard.open(path, "rb")  # zstandard's stub leaves open() untyped
    return stream


OPENERS: dict[str, Callable[[Path], ByteStream]] = {
    ".gz": lambda p: gzip.open(p, "rb"),
    ".xz": lambda p: lzma.open(p, "rb"),
    ".zst": _zstd,
}
"""Suffix -> how a file with it is opened for reading, decompressed."""

ERRORS: tuple[type[Exception], ...] = (gzip.BadGzipFile, EOFError, lzma.LZMAError, zlib.error, zstandard.ZstdError)
"""What a damaged or truncated compressed file raises while it is read."""


def open_binary(path: Path) -> ByteStream:
    """The file's bytes, decompressed as its suffix says (plain otherwise)."""
    opener = OPENERS.get(path.suffix.lower())
    return opener(path) if opener is not None else path.open("rb")


def published_names(name: str) -> list[str]:
    """A dataset file name as found on disk: plain first, then each compressed form."""
    return [name, *(name + suffix for suffix in OPENERS)]
