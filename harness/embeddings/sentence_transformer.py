"""The float encoder: a sentence-transformers model on CPU or CUDA, one text per call, one CPU thread.

A batch pads its texts to the longest and its matrix products sum in an order that depends on
the batch's shape, so a batched text's vector depends on its batch-mates in the last bits (on
this CPU 5 of 120 rows matched bit for bit; on CUDA 0 of 512). One text per call has no padding
and a shape of its own. torch's CPU matrix products also split their sums by thread count (one
thread against two: 27 of 60 rows equal), so on the CPU it runs one thread, whatever the cores:
a vector is then a function of the text alone, and the cache, the shards of a run, the worker
processes and machines with any number of cores agree byte for byte. The embedder uses the
other cores with worker processes. Both are in the cache tag (`PER_TEXT`): vectors cached before
(batched, untagged) are never read as these.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness.embeddings.device import Device
from harness.embeddings.encoder import EmbedExtraMissing, EncoderSpec
from harness.embeddings.packaged import DEFAULT_MODEL, model_source
from harness.errors import HarnessError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

PER_TEXT = "per-text-1thread"
"""The recipe tag of every sentence-transformers encoder's vectors: one text per call, one CPU thread."""


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

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:  # noqa: ARG002 - one text per call
        """Unit rows of `texts`, each computed alone (see the module docstring); `batch_size` is ignored."""
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row] = self._model.encode(
                [text], batch_size=1, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
            )[0]
        return rows


def load_sentence_transformer(name: str, device: Device, _models_dir: Path, _threads: int) -> Encoder:
    """Load a model by name or local path (the default model from its packaged copy); HF_HUB_OFFLINE=1
    keeps the hub client off the network. Nothing is built here, so `_models_dir` is unused; torch
    runs one CPU thread whatever `_threads` allows (see the module docstring)."""
    source = model_source(name)
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbedExtraMissing(
            "embedding needs sentence-transformers: install the embed extra (pip install -e '.[embed]')"
        ) from exc
    # on the CPU the thread count changes the vectors' last bits; on a GPU the CPU only tokenizes and
    # launches kernels, and worker processes that share the card would contend for the cores
    torch.set_num_threads(1)
    try:
        model = SentenceTransformer(source, device=str(device))
    except Exception as exc:  # the library raises OSError, ValueError, HF errors... all mean "not loadable"
        detail = " ".join(str(exc).split())[:300]
        raise HarnessError(f"cannot load embedding model {name!r} from {source}: {detail}") from exc
    return Encoder(name, model)


FLOAT = EncoderSpec(DEFAULT_MODEL, load_sentence_transformer, recipe=PER_TEXT, dimensions=384)
"""The packaged float MiniLM, on CPU or CUDA."""


def any_model(name: str) -> EncoderSpec:
    """Any other sentence-transformers model, by local path or cached hub name: its size is known once loaded."""
    return EncoderSpec(name, load_sentence_transformer, recipe=PER_TEXT)
