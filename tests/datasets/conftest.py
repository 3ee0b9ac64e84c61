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
    return lambda: Embedder(
        "bag-of-words", cache_dir=tmp_path / "embeddings", loader=lambda _name, _device: BagOfWordsEncoder()
    )


@pytest.fixture
def longmemeval_file(tmp_path: Path) -> Path:
    """Three questions: one plain, one abstention, one whose haystack repeats a session."""
    path = tmp_path / "longmemeval_small.json"
    path.write_text(json.dumps(longmemeval_records()), encoding="utf-8")
    return path


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo_small.json"
    path.write_text(json.dumps([locomo_conversation()]), encoding="utf-8")
    return path
