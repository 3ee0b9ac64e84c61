"""Text to unit vectors, cache first: the model is loaded only when some text is missing.

Missing texts are computed longest first; a text's vector does not depend on that order, on its
batch or on the process that computes it (see the encoders), so on the CPU many missing texts are
split across worker processes (`workers.py`) and stored in the same shards, in the same order, as
one process stores them. On a GPU the caller's own fixed-shape batches keep the card busy, so it
embeds alone unless asked for workers. Vectors are cached per device kind (the encoder's recipe
there), so a GPU's never stand in for a CPU's. Progress is reported through a callback
(the CLI draws it), never printed here.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

import numpy as np

from harness.embeddings.cache import EmbeddingCache
from harness.embeddings.device import Device, machine_threads, parse_device, resolve_device
from harness.embeddings.encoder import EmbedExtraMissing, TextEncoder, unit_rows
from harness.embeddings.packaged import DEFAULT_MODEL
from harness.embeddings.paths import default_cache_dir
from harness.embeddings.registry import load_encoder, spec
from harness.embeddings.workers import MIN_TEXTS, WorkerPool, task_texts
from harness.errors import HarnessError

Progress = Callable[[int], None]
"""Called after each stored shard with the number of texts it holds."""

SHARD_TEXTS = 512
"""Texts per cache shard: the most work an interruption can lose (a multiple of a worker's task)."""


class Embedder:
    """Embeds texts with one model, reading every cache folder and writing new vectors to `cache_dir`.

    `cache_dir=None` means `default_cache_dir()`. With `compute=False` only cached vectors are used.
    `device` (auto, cpu, cuda) is checked here and resolved on first use (`.device`, which reports state).
    `workers`: processes that compute at least MIN_TEXTS missing texts (None: one per core this
    process may use on the CPU, this process alone on a GPU; 1: this process alone). The cache
    (`.cache`) is opened on first use, for the resolved device. A custom `loader`
    is an object of this process, so with one the embedder computes here.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        read_dirs: Sequence[Path] = (),
        cache_dir: Path | None = None,
        compute: bool = True,
        *,
        loader: Callable[[str, Device], TextEncoder] | None = None,
        batch_size: int = 64,
        device: str = "auto",
        on_progress: Progress | None = None,
        workers: int | None = None,
    ):
        self.model = model
        self.compute = compute
        self._read_dirs = read_dirs
        self._cache_dir = cache_dir if cache_dir is not None else default_cache_dir()
        self.on_progress = on_progress
        self._requested_device = parse_device(device)
        self._device: Device | None = None
        self._loader = loader or load_encoder
        self._registry_loader = loader is None
        if workers is not None and workers < 1:
            raise HarnessError(f"embedding workers must be 1 or more, not {workers}")
        self._asked_workers = workers
        self._batch_size = batch_size
        self._encoder: TextEncoder | None = None
        self._keeping = False
        self._kept: WorkerPool | None = None
        self._lock = threading.RLock()
        """One thread at a time reads or fills the cache and loads the model (a run's workers
        share the embedder at `--concurrency`; in a run every text is cached before it starts)."""

    @functools.cached_property
    def cache(self) -> EmbeddingCache:
        """The vectors of this model on this device kind (resolving `auto` asks torch)."""
        return EmbeddingCache(self.model, self._read_dirs, self._cache_dir, self.device)

    @property
    def device(self) -> Device:
        """Where vectors are computed: cpu or cuda (`auto` asks torch once, on first use)."""
        if self._device is None:
            cpu_only = not spec(self.model).gpu and self._requested_device is Device.AUTO
            self._device = Device.CPU if cpu_only else resolve_device(self._requested_device)
        return self._device

    @property
    def dimensions(self) -> int:
        """Vector size, from the loaded model, the spec or the cache; loads the model only as a last resort."""
        with self._lock:
            return self._dimensions()

    def _dimensions(self) -> int:
        if self._encoder is not None:
            return self._encoder.dimensions
        if (known := spec(self.model).dimensions) is not None:
            return known
        if (cached := self.cache.dimensions) is not None:
            return cached
        if not self.compute:
            raise HarnessError(f"vector size of model {self.model} is unknown: nothing is cached and computing is off")
        return self._require_encoder(0).dimensions

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dim) float32 matrix of unit rows in input order; each distinct text is computed once."""
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        unique = list(dict.fromkeys(texts))
        cached = dict(zip(unique, self.cache.lookup(unique), strict=True))
        found = {t: v for t, v in cached.items() if v is not None}
        missing = [t for t in unique if t not in found]
        if missing:
            found.update(zip(missing, self._compute(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return unit_rows(np.stack([found[t] for t in texts]).astype(np.float32, copy=False))

    def _compute(self, texts: list[str]) -> list[np.ndarray]:
        """Vectors of `texts` in their order, computed longest first and stored in shards of SHARD_TEXTS."""
        longest_first = sorted(texts, key=lambda t: -len(t))
        computed: dict[str, np.ndarray] = {}
        stored = 0
        with closing(self._computed(longest_first)) as runs:  # an error here stops the workers at once
            for start, vectors in runs:
                computed.update(zip(longest_first[start : start + len(vectors)], vectors, strict=True))
                while len(computed) - stored >= SHARD_TEXTS or (len(computed) == len(texts) > stored):
                    shard = longest_first[stored : stored + SHARD_TEXTS]
                    self.cache.add(shard, np.stack([computed[t] for t in shard]))
                    stored += len(shard)
                    if self.on_progress is not None:
                        self.on_progress(len(shard))
        return [computed[t] for t in texts]

    def _computed(self, texts: list[str]) -> Generator[tuple[int, np.ndarray], None, None]:
        """`(start, vectors)` of consecutive runs of `texts`, in order: from worker processes when
        there are enough texts, else from this process's encoder."""
        workers = min(self._workers(), -(-len(texts) // task_texts(self.device)))
        if workers > 1 and self._registry_loader and len(texts) >= MIN_TEXTS:
            if not self.compute:
                raise self._no_cache(len(texts))
            with self._pool(workers) as pool:
                try:
                    yield from pool.encode(texts)
                except EmbedExtraMissing as exc:
                    raise self._no_cache(len(texts)) from exc
            return
        encoder = self._require_encoder(len(texts))
        for start in range(0, len(texts), SHARD_TEXTS):
            yield start, encoder.encode(texts[start : start + SHARD_TEXTS], batch_size=self._batch_size)

    def use_encoder(self, encoder: TextEncoder) -> None:
        """Compute with `encoder`, loaded by the caller for this model and device, where this process
        computes (worker processes load their own), instead of loading the model again."""
        self._encoder = encoder

    @contextmanager
    def workers_kept(self) -> Iterator[None]:
        """Within this block the worker processes of one `embed` call serve the next ones too, so a
        fill that embeds batch after batch starts them and loads their encoders once (seconds a
        batch otherwise); they stop when the block ends, queued tasks cancelled."""
        self._keeping = True
        try:
            yield
        finally:
            self._keeping = False
            kept, self._kept = self._kept, None
            if kept is not None:
                kept.close()

    @contextmanager
    def _pool(self, workers: int) -> Iterator[WorkerPool]:
        """`workers` processes for one call, or the kept pool (one per core asked) inside `workers_kept`."""
        if not self._keeping:
            with WorkerPool(self.model, workers, device=self.device) as pool:
                yield pool
            return
        if self._kept is None:
            self._kept = WorkerPool(self.model, self._workers(), device=self.device)
        yield self._kept

    def _workers(self) -> int:
        if self._asked_workers is not None:
            return self._asked_workers
        return 1 if self.device is Device.CUDA else machine_threads()

    def _require_encoder(self, missing: int) -> TextEncoder:
        if self._encoder is None:
            if not self.compute:
                raise self._no_cache(missing)
            try:
                self._encoder = self._loader(self.model, self.device)
            except EmbedExtraMissing as exc:
                raise self._no_cache(missing) from exc
        return self._encoder

    def _no_cache(self, missing: int) -> HarnessError:
        return HarnessError(
            f"{missing} texts have no cached embedding for model {self.model}: "
            "run `harness embed` (needs the embed extra)"
        )
