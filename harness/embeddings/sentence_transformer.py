"""The float encoder: a sentence-transformers model, its vectors a function of the text alone on either device.

A batch padded to its longest text sums its matrix products in an order that depends on the
batch's shape, so a text's vector would depend on its batch-mates in the last bits (on this CPU 5 of
120 rows matched bit for bit; on CUDA 0 of 512). Two recipes remove that, each cached under its own
tag, since sums on other hardware differ in the last bits anyway:

- CPU (`PER_TEXT`): one text per call, so no padding and a shape of its own; one thread, because
  torch's CPU matrix products also split their sums by thread count (one thread against two: 27 of
  60 rows equal). The embedder uses the other cores with worker processes.
- CUDA (`FIXED_SHAPE`): every call is BATCH_ROWS rows wide and a power of two tokens long (the
  smallest that holds the text), padding rows repeat a real one, and attention is the eager
  implementation, which always adds its mask (SDPA drops an all-ones mask and switches kernels with
  it). A text's rows then meet the same kernels, shapes and reduction orders whatever its
  batch-mates. One text per call left the card idle (146 texts/s on an H100); these batches ran
  1,555 texts/s on an H200 (LongMemEval-S turns).

Vectors cached before either recipe (batched, untagged) are never read as these.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness.embeddings.device import Device
from harness.embeddings.encoder import EmbedExtraMissing, EncoderSpec
from harness.embeddings.packaged import DEFAULT_MODEL, model_source
from harness.errors import HarnessError

if TYPE_CHECKING:
    import torch
    from sentence_transformers import SentenceTransformer

PER_TEXT = "per-text-1thread"
"""The recipe tag of a sentence-transformers encoder's vectors on the CPU: one text per call, one thread."""
FIXED_SHAPE = "cuda-fixed-shape-64"
"""Its recipe tag on CUDA: fixed-shape batches of BATCH_ROWS rows, eager attention."""
BATCH_ROWS = 64
"""Rows of every CUDA call, padding rows included."""
MIN_WIDTH = 16
"""The shortest token width of a CUDA call; wider ones double up to the model's length limit."""


class Encoder:
    """A loaded sentence-transformers model returning float32 unit-norm rows, one text per call or,
    with `fixed_shape`, in fixed-shape batches (see the module docstring)."""

    def __init__(self, name: str, model: SentenceTransformer, *, fixed_shape: bool = False):
        self.name = name
        self._model = model
        self._fixed_shape = fixed_shape

    @property
    def dimensions(self) -> int:
        # sentence-transformers 6 renamed the method; the extra allows versions from 3 on
        size_of = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        size = size_of()
        if size is None:
            raise HarnessError(f"embedding model {self.name} does not report its vector size")
        return int(size)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:  # noqa: ARG002 - the recipe fixes it
        """Unit rows of `texts`, each independent of the others (see the module docstring); `batch_size` is ignored."""
        if self._fixed_shape:
            return self._encode_fixed_shape(texts)
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row] = self._model.encode(
                [text], batch_size=1, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
            )[0]
        return rows

    def _encode_fixed_shape(self, texts: Sequence[str]) -> np.ndarray:
        """Tokenize all, group the texts by token width, run each group in calls of BATCH_ROWS rows."""
        import torch

        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        if not texts:
            return rows
        tokenizer = self._model.tokenizer
        if tokenizer.padding_side != "right":
            raise HarnessError(
                f"embedding model {self.name}: fixed-shape batches need a tokenizer that pads on the right"
            )
        limit = self._model.max_seq_length or int(tokenizer.model_max_length)  # the model's limit, else its tokenizer's
        tokens = tokenizer(list(texts), truncation=True, max_length=limit, padding=True, return_tensors="pt")
        pads = {name: (tokenizer.pad_token_id if name == "input_ids" else 0) for name in tokens}
        groups: dict[int, list[int]] = {}
        for row, length in enumerate(tokens["attention_mask"].sum(dim=1).tolist()):
            groups.setdefault(token_width(int(length), limit), []).append(row)
        for width, members in groups.items():
            for start in range(0, len(members), BATCH_ROWS):
                part = members[start : start + BATCH_ROWS]
                picked = torch.tensor(part + [part[0]] * (BATCH_ROWS - len(part)))
                batch = {
                    name: _fit(values[picked], width, pads[name]).to(self._model.device)
                    for name, values in tokens.items()
                }
                with torch.inference_mode():
                    vectors = self._model(batch)["sentence_embedding"]
                rows[part] = vectors[: len(part)].float().cpu().numpy()
        return rows


def token_width(length: int, limit: int) -> int:
    """The width of the calls a text of `length` tokens runs in: the smallest power of two that
    holds it, at least MIN_WIDTH, at most the model's `limit` (which tokenizing truncates to)."""
    return min(max(MIN_WIDTH, 1 << max(0, length - 1).bit_length()), limit)


def _fit(values: torch.Tensor, width: int, pad: int) -> torch.Tensor:
    """`values` (right-padded rows) cut or padded with `pad` to `width` columns."""
    import torch

    if values.shape[1] >= width:
        return values[:, :width]
    return torch.nn.functional.pad(values, (0, width - values.shape[1]), value=pad)


def _not_cached(source: str) -> str | None:
    """Why an offline load of hub model `source` must fail, found before torch is imported (seconds
    of a run that can only fail): no local folder of that name, and no config of it in the hub's
    cache. None when it may load, or when the hub would be asked (online)."""
    if Path(source).expanduser().exists() or os.environ.get("HF_HUB_OFFLINE", "").lower() not in {"1", "true", "yes"}:
        return None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # no embed extra: loading says so
        return None
    try:
        if isinstance(try_to_load_from_cache(source, "config.json"), str):
            return None
    except ValueError:  # the hub's own "not a repo id" (a path that does not exist)
        return "no such folder, and not a model id the hub's cache could hold"
    return "not in the local Hugging Face cache, and nothing is downloaded (HF_HUB_OFFLINE=1)"


def load_sentence_transformer(
    name: str, device: Device, _models_dir: Path, _threads: int, *, fixed_shape: bool | None = None
) -> Encoder:
    """Load a model by name or local path (the default model from its packaged copy); HF_HUB_OFFLINE=1
    keeps the hub client off the network. Nothing is built here, so `_models_dir` is unused; torch
    runs one CPU thread whatever `_threads` allows (see the module docstring). `fixed_shape` picks
    the CUDA recipe (fixed-shape batches, eager attention); None: on CUDA only (the tests run it on
    the CPU too)."""
    source = model_source(name)
    if (missing := _not_cached(source)) is not None:
        raise HarnessError(f"cannot load embedding model {name!r} from {source}: {missing}")
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbedExtraMissing(
            "embedding needs sentence-transformers: install the embed extra (pip install -e '.[embed]')"
        ) from exc
    # on the CPU the thread count changes the vectors' last bits; on a GPU the CPU only tokenizes and
    # launches kernels
    torch.set_num_threads(1)
    batched = device is Device.CUDA if fixed_shape is None else fixed_shape
    try:
        model = SentenceTransformer(
            source, device=str(device), model_kwargs={"attn_implementation": "eager"} if batched else None
        )
    except Exception as exc:  # the library raises OSError, ValueError, HF errors... all mean "not loadable"
        detail = " ".join(str(exc).split())[:300]
        raise HarnessError(f"cannot load embedding model {name!r} from {source}: {detail}") from exc
    return Encoder(name, model, fixed_shape=batched)


FLOAT = EncoderSpec(DEFAULT_MODEL, load_sentence_transformer, recipe=PER_TEXT, cuda_recipe=FIXED_SHAPE, dimensions=384)
"""The packaged float MiniLM, on CPU or CUDA."""


def any_model(name: str) -> EncoderSpec:
    """Any other sentence-transformers model, by local path or cached hub name: its size is known once loaded."""
    return EncoderSpec(name, load_sentence_transformer, recipe=PER_TEXT, cuda_recipe=FIXED_SHAPE)
