"""What an encoder is: a loaded model (`TextEncoder`) and the spec that names and loads it (`EncoderSpec`).

Each encoder module declares its spec next to its loader, as each backend declares its descriptor;
`registry.py` lists them. Nothing here imports an encoder module, so the package has no import circle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from harness.embeddings.device import Device
from harness.errors import HarnessError


class EmbedExtraMissing(HarnessError):
    """The packages an encoder needs are not installed: only cached vectors can be used."""


class TextEncoder(Protocol):
    """What the embedder needs from a model; tests substitute a fake."""

    name: str

    @property
    def dimensions(self) -> int: ...

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray: ...


Loader = Callable[[str, Device, Path, int], TextEncoder]
"""`load(name, device, models_dir, threads)`: the encoder `name` on a resolved device (cpu or cuda), with
at most `threads` CPU threads where its runtime lets that be chosen without changing its vectors; an
encoder built here from another model is built into `models_dir` once."""


@dataclass(frozen=True)
class EncoderSpec:
    """One encoder: its `--model` name, how to load it, and what is known of it without loading it.

    `recipe`: how its vectors are made, where that has changed (None: as published, as first
    cached); its vectors are cached under `<name>@<recipe>`, so vectors of an earlier build or an
    earlier way of running it (batched, before one text per call) are never mixed with the current
    one's. `cuda_recipe`: the recipe of its vectors computed on CUDA, where that differs from the
    CPU's (None: the same), so the two are cached apart. `dimensions`: its vector size, so an index
    can be created from a warm cache alone (None: known once loaded). `gpu`: whether its inference runs on a GPU, so `--device auto`
    picks cuda for it when torch sees one (False: it computes on the CPU whatever GPU there is).
    """

    name: str
    load: Loader
    recipe: str | None = None
    cuda_recipe: str | None = None
    dimensions: int | None = None
    gpu: bool = True

    def recipe_on(self, device: Device) -> str | None:
        """The recipe of the vectors it computes on a resolved `device` (cpu or cuda)."""
        return self.cuda_recipe if device is Device.CUDA and self.cuda_recipe is not None else self.recipe


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero): cosine similarity becomes a dot product."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
