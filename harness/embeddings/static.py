"""The static encoder: a model2vec model distilled locally from the float MiniLM (no download).

Distillation runs every vocabulary token through the float model once (a few minutes on two
cores), keeps 256 PCA components and SIF-weights the tokens; a text's vector is then the mean of
its tokens' rows, a table lookup: thousands of texts per second on a CPU.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness.embeddings.device import Device
from harness.embeddings.encoder import EmbedExtraMissing, EncoderSpec, unit_rows
from harness.embeddings.packaged import DEFAULT_MODEL, float_source
from harness.files import build_once

if TYPE_CHECKING:
    from model2vec import StaticModel

CONFIG_FILE = "config.json"
DIMENSIONS = 256
"""PCA components kept of the distilled token vectors (model2vec's default)."""


class StaticEncoder:
    """model2vec inference (NumPy); the device only matters while distilling."""

    def __init__(self, name: str, model: StaticModel):
        self.name = name
        self._model = model

    @property
    def dimensions(self) -> int:
        return int(self._model.dim)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=max(batch_size, 1024), show_progress_bar=False)
        return unit_rows(np.asarray(vectors, dtype=np.float32))


def load_static(name: str, device: Device, models_dir: Path, _threads: int) -> StaticEncoder:
    """The distilled model from `models_dir`, distilled there first (on `device`) from the packaged float
    model if it is not yet. Its inference is NumPy's, whose threads are not chosen here."""
    try:
        from model2vec import StaticModel
    except ImportError as exc:
        raise EmbedExtraMissing(f"{name} needs model2vec: install the embed extra (pip install -e '.[embed]')") from exc
    folder = models_dir / name
    if not (folder / CONFIG_FILE).is_file():
        source = float_source(name)
        build_once(folder, lambda scratch: distill_static(source, scratch, device))
    return StaticEncoder(name, StaticModel.from_pretrained(str(folder)))


def distill_static(source: Path, folder: Path, device: Device) -> None:
    """Distill `source` (a local sentence-transformers folder) into a model2vec model saved in `folder`."""
    try:
        from model2vec.distill import distill
    except ImportError as exc:
        raise EmbedExtraMissing("distilling the static encoder needs model2vec[distill]") from exc
    distill(str(source), pca_dims=DIMENSIONS, device=str(device)).save_pretrained(str(folder))


STATIC = EncoderSpec(f"{DEFAULT_MODEL}-static", load_static, dimensions=DIMENSIONS, gpu=False)
"""Distilled from the float MiniLM; its inference is a table lookup on the CPU (cuda only speeds the distillation)."""
