"""Lifecycle fixtures: the built-in scenarios, the committed embeddings (never the model: these
tests run offline), a word-hashing embedder for scenarios written in tests, and every registered
backend, marked with its name so `--backend` selects it."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.embeddings import DEFAULT_MODEL, Embedder
from harness.models.scenario import LifecycleSuite
from harness.suites.mnemonic import load_mnemonic
from harness.suites.resolve import cases_dir
from harness.text import content_terms


class WordHashEmbedder:
    """Deterministic bag-of-words vectors (each word hashed to a signed dimension): texts sharing
    words are close, so near-duplicates written in a test are near in embedding too."""

    dimensions = 64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in content_terms(text):
                digest = hashlib.sha256(word.encode()).digest()
                rows[row, digest[0] % self.dimensions] += 1.0 if digest[1] % 2 else -1.0
            norm = np.linalg.norm(rows[row])
            rows[row] = rows[row] / norm if norm else rows[row]
        return rows


@pytest.fixture(scope="session")
def builtin_suite() -> LifecycleSuite:
    return load_mnemonic(cases_dir() / "lifecycle" / "builtin", name="lifecycle:builtin")


@pytest.fixture(scope="session")
def committed_embedder() -> Embedder:
    """Committed vectors only: a text without one is an error, never a model download."""
    return Embedder(DEFAULT_MODEL, cache_dir=cases_dir() / "embeddings", compute=False)


@pytest.fixture
def embedded() -> Iterator[Backend]:
    backend = registry.connect("embedded")
    yield backend
    backend.close()
