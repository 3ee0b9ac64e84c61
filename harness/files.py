"""Reading and writing files safely, one way everywhere: only regular files are read, never more
than a limit (a FIFO blocks, `/dev/zero` never ends, `/proc` files lie about their size); every
write goes to a sibling temporary file (or folder: `build_once`, derived models) renamed over the
target, removed if anything fails."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


class NotReadable(Exception):
    """Why a file cannot be read as asked; callers turn it into their own one-line error."""


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of the regular file `path`, refused beyond `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, and is refused below
    except FileNotFoundError:
        raise NotReadable("no such file") from None
    except OSError as exc:
        raise NotReadable(f"cannot read: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # a folder opens too, but cannot be wrapped as a file
        os.close(fd)
        raise NotReadable("not a regular file")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > limit:
            raise NotReadable(f"{info.st_size} bytes, over the limit of {limit} bytes")
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise NotReadable(f"cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise NotReadable(f"over the limit of {limit} bytes")
    return data


def atomic_write(path: Path, content: str | bytes | Callable[[BinaryIO], object]) -> None:
    """Write `content` (text as UTF-8, bytes, or a function writing to the open binary file) to a
    sibling temporary file, then rename it over `path`; the temporary file never outlives a failure."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask's usual mode
    try:
        with os.fdopen(fd, "wb") as handle:
            if callable(content):
                content(handle)
            else:
                handle.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def build_once(folder: Path, build: Callable[[Path], None]) -> None:
    """Run `build` into a scratch folder beside `folder`, then rename it into place.

    A crash leaves no half-built model; of two processes building at once, the first rename wins
    and the other's result is discarded (both built the same thing from the same source).
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
    try:
        build(scratch)
        try:
            os.rename(scratch, folder)
        except OSError:
            if not folder.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
