"""Atomic, never-overwriting report files: `<stem>-<UTC timestamp>.<ext>` plus a `latest` copy."""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.files import atomic_write


class NonFinite(HarnessError):
    """A NaN or infinite number about to be written: a metric computed from nothing, or a bug."""

    exit_code = 1


def report_json(data: Mapping[str, Any]) -> str:
    """A report as written to its `.json` file: indented, UTF-8 as it is, dates and paths as text.
    NaN is not JSON (and every comparison with it is false): one is an error naming where it is."""
    if (where := non_finite(data)) is not None:
        raise NonFinite(f"report value {where} is not a finite number; nothing was written")
    return json.dumps(data, indent=1, ensure_ascii=False, default=str, allow_nan=False) + "\n"


def non_finite(value: Any, where: str = "") -> str | None:
    """The path (`summary.bm25.mrr`, `cases[3].score`) of the first NaN or infinity in `value`."""
    if isinstance(value, float) and not math.isfinite(value):
        return where or "(the value)"
    if isinstance(value, Mapping):
        items: Any = ((f"{where}.{key}" if where else str(key), item) for key, item in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{where}[{index}]", item) for index, item in enumerate(value))
    else:
        return None
    return next((found for path, item in items if (found := non_finite(item, path)) is not None), None)


def _claim(path: Path) -> bool:
    """Reserve a name with O_EXCL so two runs in the same second cannot take the same file."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        return True
    except FileExistsError:
        return False


def _reserve(out_dir: Path, stem: str, extensions: list[str], stamp: str) -> dict[str, Path]:
    """One free name for all extensions: a clash adds `-2`, `-3`, ... to every file at once."""
    for attempt in range(1, 1000):
        name = f"{stem}-{stamp}" + (f"-{attempt}" if attempt > 1 else "")
        paths = {ext: out_dir / f"{name}.{ext}" for ext in extensions}
        claimed = [p for p in paths.values() if _claim(p)]
        if len(claimed) == len(paths):
            return paths
        for path in claimed:
            path.unlink()
    raise FileExistsError(f"no free report name for {stem}-{stamp} in {out_dir}")


Contents = Mapping[str, str | bytes | Callable[[Mapping[str, Path]], str]]
"""Per extension, the text (or bytes: a chart), or what makes it from the names the files get (a report that names its files)."""


def write_run_files(
    out_dir: Path, stem: str, contents: Contents, now: datetime | None = None, *, latest: bool = True
) -> list[Path]:
    """Write each `{extension: text}` as a new timestamped file, then refresh `<stem>-latest.<ext>`.

    Timestamped files are never overwritten. If making or writing a file fails, the reserved names are removed
    and the `latest` copies still all belong to the previous run. `latest=False` (an incomplete
    run) leaves the `latest` copies alone.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    paths = _reserve(out_dir, stem, list(contents), stamp)
    try:  # a body that fails while it is made leaves none of the reserved names at 0 bytes
        texts = {ext: text if isinstance(text, str | bytes) else text(paths) for ext, text in contents.items()}
        for ext, text in texts.items():
            atomic_write(paths[ext], text)
    except BaseException:
        for path in paths.values():
            path.unlink(missing_ok=True)
        raise
    if latest:
        for ext, text in texts.items():
            atomic_write(out_dir / f"{stem}-latest.{ext}", text)
    return list(paths.values())


def write_or_rescue(
    out_dir: Path, stem: str, contents: Contents, now: datetime | None = None, *, latest: bool = True
) -> list[Path]:
    """`write_run_files`; if the folder fails after the run (removed, full), the files go to a new temp
    folder and the error names it, so a finished run is never lost."""
    try:
        return write_run_files(out_dir, stem, contents, now, latest=latest)
    except OSError as exc:
        rescue = Path(tempfile.mkdtemp(prefix="harness-reports-"))
        paths = write_run_files(rescue, stem, contents, now, latest=False)
        raise HarnessError(
            f"cannot write reports to {out_dir} ({exc.strerror or exc}); written instead: {', '.join(map(str, paths))}"
        ) from None


REPORT_NAME = re.compile(r"-(latest|\d{8}T\d{6}Z(-\d+)?)\.(json|md|html|png|trec|qrels)$")
"""How the name of a file `write_run_files` writes ends: `-latest` or its time, then its extension."""


def report_in(out_dir: Path) -> Callable[[Path], bool]:
    """Whether a path is a report's name in `out_dir` (a run's own files, and earlier runs'): no
    other output of a command may take it (`files.check_output`'s `owned`)."""
    folder = out_dir.resolve()
    return lambda path: bool(REPORT_NAME.search(path.name)) and path.parent.resolve() == folder
