"""Fixtures: small dataset files written per test and an embedder backed by a fake model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.embeddings import Embedder

from .builders import BagOfWordsEncoder, locomo_conversation, longmemeval_records


@pytest.fixture
def embedder_factory(tmp_path: Path) -> Callable[[], Embedder]:
    return bag_of_words(tmp_path)


def bag_of_words(folder: Path) -> Callable[[], Embedder]:
    """Embedders of the fake model, caching under `folder`."""
    return lambda: Embedder(
        "bag-of-words", cache_dir=folder / "embeddings", loader=lambda _name, _device: BagOfWordsEncoder()
    )


@pytest.fixture
def longmemeval_file(tmp_path: Path) -> Path:
    return longmemeval_small(tmp_path)


def longmemeval_small(folder: Path) -> Path:
    """Three questions: one plain, one abstention, one whose haystack repeats a session."""
    path = folder / "longmemeval_small.json"
    path.write_text(json.dumps(longmemeval_records()), encoding="utf-8")
    return path


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo_small.json"
    path.write_text(json.dumps([locomo_conversation()]), encoding="utf-8")
    return path
