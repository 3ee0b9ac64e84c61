"""A deterministic encoder and an opening for the adapter tests: words hashed into 64 dimensions,
so texts sharing words are near and the tests need no model."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from harness.backends.base import Backend
from harness.systems.protocol import Opening
from tests.faults.helpers import kill_while

DIMENSIONS = 64


class WordHashEncoder:
    """Unit vectors of hashed word counts."""

    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                rows[i, int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


class Ledger:
    """What an opening recorded and forgot, as the run's `--url` ledger would."""

    def __init__(self) -> None:
        self.recorded: list[str] = []
        self.forgotten: list[str] = []
        self.details: dict[str, dict[str, str]] = {}

    def record(self, namespace: str, /, **details: str) -> None:
        self.recorded.append(namespace)
        self.details[namespace] = details


def opening(backend: Backend, name: str, url: str, ledger: Ledger, *, vectors: bool = True) -> Opening:
    return Opening(
        backend=backend,
        backend_name=name,
        url=url,
        namespace=f"t{uuid.uuid4().hex[:12]}",
        embedder=WordHashEncoder() if vectors else None,
        record=ledger.record,
        forget=ledger.forgotten.append,
    )


TEXTS = {
    "id:0/bike": "I bought a red bicycle last week",
    "id:1/dog": "my dog is called Rex",
    "id:2/deploy": "the deploy to production failed on friday",
    "id:3/tea": "I like green tea in the morning",
}


def require_extra(module: str, extra: str) -> None:
    """Skip the module's tests where the extra is not installed, saying so; under CI (which installs
    `.[dev]`, holding both extras) fail instead. The package is looked up, not imported: mem0 must be
    imported by its adapter, with telemetry off."""
    if importlib.util.find_spec(module) is None:
        message = f"the {extra} extra is not installed (pip install -e '.[{extra}]')"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message, allow_module_level=True)


def killed_run(tmp_path: Path, args: Sequence[str], ready: Callable[[], bool], env: Mapping[str, str]) -> None:
    """`harness ARGS` in a process of its own, killed by SIGKILL (nothing it can catch) at a moment
    `ready()` says it has written what the test needs left behind (frozen first: `kill_while`)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", *args],
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": str(Path(__file__).parents[2]), "HF_HUB_OFFLINE": "1", **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    kill_while(process, lambda: True if ready() else None, within=240)
