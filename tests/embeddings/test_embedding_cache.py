"""The text-hash shard cache: round trip, one shard per batch, several folders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import EmbeddingCache, model_folder, text_key
from harness.errors import HarnessError


def _vectors(n: int, dim: int = 4, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def test_round_trip_through_a_new_instance(tmp_path: Path) -> None:
    texts = ["alpha", "beta", "ünïcode ✓"]
    vectors = _vectors(3)
    EmbeddingCache("org/model", write_dir=tmp_path).add(texts, vectors)

    reread = EmbeddingCache("org/model", write_dir=tmp_path)
    found = reread.lookup(["beta", "missing", "ünïcode ✓", "alpha"])

    assert found[1] is None
    np.testing.assert_array_equal(np.stack([found[3], found[0], found[2]]), vectors)
    assert reread.dimensions == 4
    assert (tmp_path / "org__model@per-text-1thread").is_dir()
    assert model_folder("org/model") == "org__model@per-text-1thread"


def test_each_add_writes_one_uniquely_named_shard_with_hex_keys(tmp_path: Path) -> None:
    cache = EmbeddingCache("m", write_dir=tmp_path)
    first = cache.add(["a"], _vectors(1))
    second = cache.add(["b"], _vectors(1, seed=1))

    assert first is not None
    assert second is not None
    assert first != second
    assert sorted(p.name for p in (tmp_path / model_folder("m")).iterdir()) == sorted([first.name, second.name])
    with np.load(first) as shard:
        assert shard["keys"].tolist() == [text_key("a")]
        assert shard["vectors"].dtype == np.float32


def test_reads_every_folder_and_writes_only_to_the_write_folder(tmp_path: Path) -> None:
    committed, local = tmp_path / "committed", tmp_path / "local"
    EmbeddingCache("m", write_dir=committed).add(["shipped"], _vectors(1))
    cache = EmbeddingCache("m", read_dirs=[committed], write_dir=local)
    cache.add(["new"], _vectors(1, seed=2))

    assert all(v is not None for v in cache.lookup(["shipped", "new"]))
    assert len(list((committed / model_folder("m")).iterdir())) == 1
    assert len(list((local / model_folder("m")).iterdir())) == 1


def test_without_a_write_folder_vectors_live_in_memory_only(tmp_path: Path) -> None:
    cache = EmbeddingCache("m", read_dirs=[tmp_path])
    assert cache.add(["x"], _vectors(1)) is None
    assert cache.lookup(["x"])[0] is not None
    assert not (tmp_path / model_folder("m")).exists()


def test_shards_of_different_sizes_are_a_clear_error(tmp_path: Path) -> None:
    EmbeddingCache("m", write_dir=tmp_path).add(["a"], _vectors(1, dim=4))
    EmbeddingCache("m", write_dir=tmp_path / "other").add(["b"], _vectors(1, dim=8))
    with pytest.raises(HarnessError, match="mixes 4 and 8 dimensions"):
        EmbeddingCache("m", read_dirs=[tmp_path / "other"], write_dir=tmp_path).lookup(["a"])


def test_leftover_temp_files_are_ignored(tmp_path: Path) -> None:
    (tmp_path / model_folder("m")).mkdir()
    (tmp_path / model_folder("m") / ".123-1-0.npz.abc.tmp").write_bytes(b"half a shard")
    assert EmbeddingCache("m", write_dir=tmp_path).lookup(["a"]) == [None]
