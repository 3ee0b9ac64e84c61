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

FILE_NAME = "baseline-history.jsonl"


def append(path: Path, entry: Mapping[str, Any]) -> None:
    data = (json.dumps(entry, sort_keys=True, allow_nan=False) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        written = os.write(fd, data)
    finally:
        os.close(fd)
    if written != len(data):
        raise OSError(f"{path}: wrote {written} of {len(data)} bytes of a history line (disk full?)")


def read(path: Path) -> list[dict[str, Any]]:
    """Every entry, oldest first (none when the file does not exist yet)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
