"""The history of freezes and checks: one JSON line per freeze and per checked run.

It lies beside the run's reports (`<--out>/baseline-history.jsonl`; under pytest, in the session's
basetemp), never beside the committed baselines, so a check leaves the checkout as it found it and
a freeze changes it only by the baseline files it writes (their git log is the baselines' history).
Lines are only ever appended, each in one write to a file opened for appending, so two runs
checking at once never interleave inside a line and nothing earlier is rewritten.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.files import NotReadable, read_bounded

MAX_HISTORY_BYTES = 256 * 2**20
"""Largest history file read: years of freezes and checks are far below it."""


class HistoryError(HarnessError):
    """A history file that cannot be written or read (its folder is a file, it is a folder, ...)."""


FILE_NAME = "baseline-history.jsonl"


def append(path: Path, entry: Mapping[str, Any]) -> None:
    data = (json.dumps(entry, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            written = os.write(fd, data)
        finally:
            os.close(fd)
    except OSError as exc:
        raise HistoryError(f"baseline history {path}: cannot write: {exc.strerror}") from None
    if written != len(data):
        raise HistoryError(f"{path}: wrote {written} of {len(data)} bytes of a history line (disk full?)")


def read(path: Path) -> list[dict[str, Any]]:
    """Every entry, oldest first (none when the file does not exist yet)."""
    if not path.exists():
        return []
    try:
        text = read_bounded(path, MAX_HISTORY_BYTES).decode("utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except (NotReadable, ValueError) as exc:
        raise HistoryError(f"baseline history {path}: {exc}") from None
