"""Missing vectors computed by worker processes, one encoder thread each, in the order asked.

One text per call (what keeps a vector a function of its text) leaves a second thread little to
share: measured on two cores with the int8 encoder, one process with two threads embedded about
100 texts/s, two processes with one thread each about 128 together. So a long CPU run is split
across processes; each loads the encoder once, on its first task, with one thread, and gives the
same bytes as the caller's own encoder (every encoder's vector is a function of the text alone,
whatever the thread count: `tests/embeddings`). On a GPU the caller's fixed-shape batches keep the
card busy alone; workers there (only when asked) each hold a CUDA context and share the card.

Workers are spawned, not forked (the caller may hold torch, ONNX Runtime or progress threads whose
locks a fork would copy). None outlives its caller: a worker ignores SIGINT (the caller owns Ctrl-C
and cancels what is queued, so at most one task per worker finishes), and a thread in each waits
on the caller's sentinel and ends the worker when the caller dies, even by SIGKILL.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.connection import wait
from pathlib import Path
from types import TracebackType

import numpy as np

from harness.embeddings.device import Device
from harness.embeddings.encoder import TextEncoder
from harness.embeddings.registry import load_encoder

TASK_TEXTS = 32
"""Texts per task on the CPU: what a worker finishes after Ctrl-C, and the progress step's grain."""
GPU_TASK_TEXTS = 512
"""Texts per task on a GPU: whole fixed-shape batches (tasks of 32 half-filled its 64-row calls:
four workers on an H200, 440 texts/s). Even so one process is faster there (a quarter of
LongMemEval-S: four workers 96 s, one process 53 s), which is the embedder's default on a GPU."""
MIN_TEXTS = 1024
"""Fewer missing texts than this are computed in the caller: starting workers and loading the
encoder in each (seconds, torch's import most) would cost more than the second core gives."""


class WorkerPool:
    """`workers` processes embedding with `model` on `device` (resolved: cpu or cuda); shut down
    (queued tasks cancelled) on exit."""

    def __init__(self, model: str, workers: int, models_dir: Path | None = None, device: Device = Device.CPU):
        self._model = model
        self._models_dir = models_dir
        self._device = device
        self._pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker
        )

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers once their running tasks end; queued tasks are cancelled."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def encode(self, texts: Sequence[str]) -> Iterator[tuple[int, np.ndarray]]:
        """`(start, vectors)` for each task's run of texts from `start`, in order; a worker's error is raised here."""
        size = task_texts(self._device)
        tasks: list[tuple[int, Future[np.ndarray]]] = [
            (
                start,
                self._pool.submit(
                    _encode, self._model, self._device, self._models_dir, list(texts[start : start + size])
                ),
            )
            for start in range(0, len(texts), size)
        ]
        try:
            for start, task in tasks:
                yield start, task.result()
        finally:  # a caller that stops early (an error, Ctrl-C) leaves a kept pool nothing queued
            for _, task in tasks:
                task.cancel()


def task_texts(device: Device) -> int:
    """Texts per task on a resolved `device`."""
    return GPU_TASK_TEXTS if device is Device.CUDA else TASK_TEXTS


def _start_worker() -> None:
    """Each worker: Ctrl-C is the caller's to handle; the caller's end is the worker's end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # one thread per worker, the tokenizer's too
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()


def _end_with(sentinel: int) -> None:
    wait([sentinel])
    os._exit(1)


@functools.cache
def _encoder(model: str, device: Device, models_dir: Path | None) -> TextEncoder:
    """The worker's encoder, loaded on its first task and kept for the worker's life."""
    return load_encoder(model, device, models_dir, threads=1)


def _encode(model: str, device: Device, models_dir: Path | None, texts: list[str]) -> np.ndarray:
    return _encoder(model, device, models_dir).encode(texts)
