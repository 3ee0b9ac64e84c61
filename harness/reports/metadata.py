"""Where and with what a run happened, so two reports can be told apart and reproduced."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import __version__
from harness.backends.base import BackendInfo
from harness.models import Suite
from harness.pipeline.ruleset import ruleset
from harness.resources import checkout_root


def _git_commit(root: Path | None) -> str | None:
    if root is None:
        return None
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def git_commit() -> str | None:
    """The checkout's commit, when the harness runs from one."""
    return _git_commit(checkout_root())


def file_digest(path: Path) -> str:
    """Streamed: a dataset file is hundreds of MB (read whole, LongMemEval-S's took the run from 84 to 330 MB)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def machine() -> dict[str, Any]:
    """Where the numbers were measured: timings mean little without it."""
    try:
        memory_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        memory_gb = None
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or None,
        "cpus": os.cpu_count(),
        "memory_gb": memory_gb,
    }


def run_metadata(backend: BackendInfo | None, **extra: Any) -> dict[str, Any]:
    return {
        "harness_version": __version__,
        "git_commit": _git_commit(checkout_root()),
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **machine(),
        "backend": asdict(backend) if backend else None,
        **extra,
    }


def suite_record(suite: Suite, embedding_model: str | None) -> dict[str, Any]:
    """A suite as a report records it: its files, the ruleset it was judged by, and, when vector
    modes ran with another model than the suite's authors used, a note saying so."""
    rules = ruleset(suite.ruleset)
    record: dict[str, Any] = {
        "name": suite.name,
        "sources": [{"path": str(p), "sha256": file_digest(p)} for p in suite.sources],
        "ruleset": rules.name,
        "rules": rules.to_json(),
    }
    upstream = rules.upstream_embedding_model
    if embedding_model and upstream and upstream != embedding_model:
        record["note"] = (
            f"vector and hybrid modes embed with {embedding_model}, not the authors' {upstream}: "
            "their counts are not the published ones"
        )
    return record
