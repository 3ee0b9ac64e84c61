"""Reading and writing files safely, one way everywhere: only regular files are read, never more
than a limit (a FIFO blocks, `/dev/zero` never ends, `/proc` files lie about their size); every
write goes to a sibling temporary file (or folder: `build_once`, derived models) renamed over the
target, removed if anything fails, and never over anything but a regular file (a rename would
replace a device, a FIFO or a symlink); every path a command will write is checked before it
works (`check_output`), so a finished run is never lost to a bad path."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from harness.errors import HarnessError


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
    sibling temporary file, then rename it over `path` (FileExistsError where `path` is there and
    not a regular file); the temporary file never outlives a failure."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask's usual mode
    try:
        with os.fdopen(fd, "wb") as handle:
            if callable(content):
                content(handle)
            else:
                handle.write(content.encode("utf-8") if isinstance(content, str) else content)
        if (why := _not_regular(path)) is not None:
            raise FileExistsError(errno.EEXIST, f"{why}: not replaced", str(path))
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


def _not_regular(path: Path) -> str | None:
    """What `path` is when it is there and not a regular file (a symlink is not followed)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a device or socket" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode) else "not a file"


def check_output(
    path: Path, option: str, *, folder: bool = False, owned: Callable[[Path], bool] = lambda _path: False
) -> None:
    """The one check of a path a command will write, before it works: a folder (`folder`: reports
    go in it) that is there or can be made, and is writable; else a regular file or a new name
    (never a device, a FIFO or a symlink, which a rename would replace), in such a folder, and not
    a file the command writes itself (`owned`: a report's name in its report folder). Anything
    else is a one-line `HarnessError` naming `option` (exit 2)."""
    where = f"{option} {path}"
    if not folder:
        try:
            why = _not_regular(path)
        except NotADirectoryError:
            why = "a part of the path is a file, not a folder"
        except OSError as exc:
            why = f"cannot be written: {exc.strerror}"
        except ValueError as exc:  # a NUL in the name
            why = str(exc)
        if why is not None:
            raise HarnessError(f"{where}: {why}")
        if owned(path):
            raise HarnessError(f"{where}: a report's name in the report folder; name another file")
    _check_folder(path if folder else path.parent, where, "" if folder else "its folder ")


def _check_folder(folder: Path, where: str, named: str) -> None:
    """Create `folder` and prove it writable now, with a file of its own made and removed."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".harness-probe-{uuid.uuid4().hex[:12]}"
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        probe.unlink()
    except FileExistsError:
        raise HarnessError(f"{where}: {named}exists and is not a folder") from None
    except NotADirectoryError:
        raise HarnessError(f"{where}: a part of the path is a file, not a folder") from None
    except OSError as exc:
        raise HarnessError(f"{where}: cannot write {named or 'reports '}there: {exc.strerror}") from None
    except ValueError as exc:  # a NUL in the name
        raise HarnessError(f"{where}: {exc}") from None
