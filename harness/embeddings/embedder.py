"""Text to unit vectors, cache first: the model is loaded only when some text is missing."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from harness.embeddings.cache import EmbeddingCache
from harness.embeddings.model import DEFAULT_MODEL, KNOWN_DIMENSIONS, EmbedExtraMissing, TextEncoder, load_encoder
from harness.errors import HarnessError

PROGRESS_THRESHOLD = 200
"""Show a progress bar only when this many texts must be computed (a few seconds of work)."""

SHARD_TEXTS = 512
"""Texts per cache shard: the most work an interruption can lose."""


def default_cache_dir() -> Path:
    """`$HARNESS_CACHE_DIR`, else `$XDG_CACHE_HOME/memory-harness/embeddings`, else under `~/.cache`."""
    if explicit := os.environ.get("HARNESS_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memory-harness" / "embeddings"


class Embedder:
    """Embeds texts with one model, reading every cache folder and writing new vectors to `cache_dir`.

    `cache_dir=None` means `default_cache_dir()`. With `compute=False` only cached vectors are used.
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        read_dirs: Sequence[Path] = (),
        cache_dir: Path | None = None,
        compute: bool = True,
        *,
        loader: Callable[[str], TextEncoder] = load_encoder,
        batch_size: int = 64,
    ):
        self.model = model
        self.compute = compute
        self.cache = EmbeddingCache(model, read_dirs, cache_dir if cache_dir is not None else default_cache_dir())
        self._loader = loader
        self._batch_size = batch_size
        self._encoder: TextEncoder | None = None

    @property
    def dimensions(self) -> int:
        """Vector size, from the loaded model, the cache or known sizes; loads the model only as a last resort."""
        if self._encoder is not None:
            return self._encoder.dimensions
        if (cached := self.cache.dimensions) is not None:
            return cached
        if self.model in KNOWN_DIMENSIONS:
            return KNOWN_DIMENSIONS[self.model]
        if not self.compute:
            raise HarnessError(f"vector size of model {self.model} is unknown: nothing is cached and computing is off")
        return self._require_encoder(0).dimensions

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """An (n, dim) float32 matrix of unit rows in input order; each distinct text is computed once."""
        unique = list(dict.fromkeys(texts))
        found = dict(zip(unique, self.cache.lookup(unique), strict=True))
        missing = [t for t, v in found.items() if v is None]
        if missing:
            found.update(zip(missing, self._compute(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        matrix = np.stack([found[t] for t in texts]).astype(np.float32, copy=False)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1, norms)

    def _compute(self, texts: list[str]) -> list[np.ndarray]:
        encoder = self._require_encoder(len(texts))
        batches = [texts[i : i + SHARD_TEXTS] for i in range(0, len(texts), SHARD_TEXTS)]
        vectors: list[np.ndarray] = []
        with _progress(len(texts) > PROGRESS_THRESHOLD) as progress:
            task = progress.add_task(f"embedding with {self.model}", total=len(texts))
            for batch in batches:
                computed = encoder.encode(batch, batch_size=self._batch_size)
                self.cache.add(batch, computed)
                vectors.extend(computed)
                progress.advance(task, len(batch))
        return vectors

    def _require_encoder(self, missing: int) -> TextEncoder:
        if self._encoder is None:
            if not self.compute:
                raise self._no_cache(missing)
            try:
                self._encoder = self._loader(self.model)
            except EmbedExtraMissing as exc:
                raise self._no_cache(missing) from exc
        return self._encoder

    def _no_cache(self, missing: int) -> HarnessError:
        return HarnessError(
            f"{missing} texts have no cached embedding for model {self.model}: "
            "run `harness embed` (needs the embed extra)"
        )


def _progress(visible: bool) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not visible,
        transient=False,
    )
