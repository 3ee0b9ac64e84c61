"""Atomic, never-overwriting report files: `<stem>-<UTC timestamp>.<ext>` plus a `latest` copy."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path


def _atomic_write(path: Path, content: str) -> None:
    """Write to a temp file in the same folder, then rename: readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(content)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _claim(path: Path) -> bool:
    """Reserve a name with O_EXCL so two runs in the same second cannot take the same file."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False


def write_run_files(out_dir: Path, stem: str, contents: Mapping[str, str], now: datetime | None = None) -> list[Path]:
    """Write each `{extension: text}` as a timestamped file and refresh `<stem>-latest.<ext>`.

    Timestamped files are never overwritten: a clash gets a `-2`, `-3`, ... suffix on every
    extension at once, so the files of one run share one name.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    for attempt in range(1, 1000):
        name = f"{stem}-{stamp}" + (f"-{attempt}" if attempt > 1 else "")
        paths = {ext: out_dir / f"{name}.{ext}" for ext in contents}
        claimed = [p for p in paths.values() if _claim(p)]
        if len(claimed) == len(paths):
            break
        for path in claimed:
            path.unlink()
    else:
        raise FileExistsError(f"no free report name for {stem}-{stamp} in {out_dir}")
    written = []
    for ext, text in contents.items():
        _atomic_write(paths[ext], text)
        _atomic_write(out_dir / f"{stem}-latest.{ext}", text)
        written.append(paths[ext])
    return written
