"""The embedder: cache first, each distinct text computed once, batches kept across interruptions."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from harness.embeddings import Embedder, EmbedExtraMissing, default_cache_dir, load_encoder, model_folder
from harness.embeddings import embedder as embedder_module
from harness.errors import HarnessError


class CountingEncoder:
    """Deterministic fake model that records every text it is asked to encode."""

    name = "fake"
    dimensions = 8

    def __init__(self, fail_after: int | None = None):
        self.seen: list[str] = []
        self._fail_after = fail_after

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:  # noqa: ARG002 - the TextEncoder signature; a fake has no batches
        if self._fail_after is not None and len(self.seen) >= self._fail_after:
            raise KeyboardInterrupt
        self.seen.extend(texts)
        rows = [np.random.default_rng(sum(t.encode())).standard_normal(self.dimensions) for t in texts]
        matrix = np.asarray(rows, dtype=np.float32)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _embedder(tmp_path: Path, encoder: CountingEncoder, **kwargs: object) -> Embedder:
    kwargs.setdefault("device", "cpu")  # the cache folder is the device's: not the machine's choice here
    return Embedder("fake", cache_dir=tmp_path, loader=lambda _name, _device: encoder, **kwargs)  # type: ignore[arg-type]


def test_rows_are_unit_in_input_order_and_duplicates_computed_once(tmp_path: Path) -> None:
    encoder = CountingEncoder()
    matrix = _embedder(tmp_path, encoder).embed(["b", "a", "b", "c", "a"])

    assert matrix.shape == (5, 8)
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1, atol=1e-6)
    np.testing.assert_array_equal(matrix[0], matrix[2])
    assert sorted(encoder.seen) == ["a", "b", "c"]


def test_a_second_embedder_reads_the_cache_and_computes_nothing(tmp_path: Path) -> None:
    first = _embedder(tmp_path, CountingEncoder()).embed(["x", "y"])
    again = CountingEncoder()
    second = _embedder(tmp_path, again).embed(["y", "x"])

    assert again.seen == []
    np.testing.assert_array_equal(second, first[::-1])


def test_batches_finished_before_an_interruption_are_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedder_module, "SHARD_TEXTS", 3)
    texts = [f"text {i}" for i in range(10)]
    with pytest.raises(KeyboardInterrupt):
        _embedder(tmp_path, CountingEncoder(fail_after=6)).embed(texts)
    assert len(list((tmp_path / model_folder("fake")).glob("*.npz"))) == 2

    resumed = CountingEncoder()
    _embedder(tmp_path, resumed).embed(texts)
    assert resumed.seen == texts[6:]

    idle = CountingEncoder()
    _embedder(tmp_path, idle).embed(texts)
    assert idle.seen == []


def test_a_gpus_vectors_never_stand_in_for_a_cpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A GPU sums in another order, so its vectors are cached under the model's CUDA recipe: a text
    cached on one device is computed again on the other, and each finds its own afterwards."""
    from harness.embeddings import device as device_module

    monkeypatch.setattr(device_module, "torch_sees_cuda", lambda: True)
    _embedder(tmp_path, CountingEncoder()).embed(["a turn"])
    on_gpu = CountingEncoder()
    _embedder(tmp_path, on_gpu, device="cuda").embed(["a turn"])
    again = CountingEncoder()
    for device in ("cpu", "cuda"):
        _embedder(tmp_path, again, device=device).embed(["a turn"])

    assert on_gpu.seen == ["a turn"]
    assert again.seen == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake@cuda-fixed-shape-64", "fake@per-text-1thread"]


def test_compute_off_names_the_missing_count_and_the_command(tmp_path: Path) -> None:
    _embedder(tmp_path, CountingEncoder()).embed(["cached"])
    offline = _embedder(tmp_path, CountingEncoder(), compute=False)

    assert offline.embed(["cached"]).shape == (1, 8)
    with pytest.raises(HarnessError) as raised:
        offline.embed(["cached", "new one", "new two", "new one"])
    assert str(raised.value) == (
        "2 texts have no cached embedding for model fake: run `harness embed` (needs the embed extra)"
    )


def test_dimensions_come_from_the_cache_without_loading_the_model(tmp_path: Path) -> None:
    _embedder(tmp_path, CountingEncoder()).embed(["cached"])

    def refuse(_name: str, _device: object) -> CountingEncoder:
        raise AssertionError("model loaded")

    assert Embedder("fake", cache_dir=tmp_path, loader=refuse).dimensions == 8
    assert Embedder(cache_dir=tmp_path / "empty", loader=refuse).dimensions == 384


def test_an_encoder_the_caller_loaded_is_used_not_loaded_again(tmp_path: Path) -> None:
    """A run loads the model before its fill (its exit-code rule); the fill computes with that one."""

    def refuse(_name: str, _device: object) -> CountingEncoder:
        raise AssertionError("model loaded again")

    loaded = CountingEncoder()
    embedder = Embedder("fake", cache_dir=tmp_path, device="cpu", loader=refuse)
    embedder.use_encoder(loaded)

    assert embedder.embed(["a", "b"]).shape == (2, 8)
    assert loaded.seen == ["a", "b"]


def test_default_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "explicit"))
    assert default_cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("HARNESS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "memory-harness" / "embeddings"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "memory-harness" / "embeddings"


def test_without_sentence_transformers_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(EmbedExtraMissing, match=r"install the embed extra \(pip install -e '\.\[embed\]'\)"):
        load_encoder()
    with pytest.raises(HarnessError, match=r"^1 texts have no cached embedding for model all-MiniLM-L6-v2: run"):
        Embedder(cache_dir=tmp_path).embed(["never embedded"])


class RecordingPool:
    """Stands in for `WorkerPool`: records how it was asked for and encodes with `CountingEncoder`."""

    made: ClassVar[list[tuple[str, int, str]]] = []
    closed: ClassVar[int] = 0

    def __init__(self, model: str, workers: int, models_dir: Path | None = None, device: str = "cpu"):  # noqa: ARG002 - WorkerPool's signature
        RecordingPool.made.append((model, workers, str(device)))

    def __enter__(self) -> RecordingPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        RecordingPool.closed += 1

    def encode(self, texts: Sequence[str]) -> list[tuple[int, np.ndarray]]:
        return [(0, CountingEncoder().encode(texts))]


@pytest.mark.parametrize(
    ("device", "asked", "workers"),
    [("cpu", None, 16), ("cpu", 40, 35), ("cuda", None, None), ("cuda", 2, 2), ("cuda", 20, 3)],
)
def test_many_missing_texts_go_to_worker_processes_on_either_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, device: str, asked: int | None, workers: int | None
) -> None:
    """On 16 cores, 1,100 texts are 35 tasks of 32 on the CPU, one worker per core by default, and 3
    tasks of whole batches on a GPU, where the caller embeds alone by default (its fixed-shape batches
    fill the card); else as many workers as asked, never more than tasks, on the device asked."""
    from harness.embeddings import device as device_module

    monkeypatch.setattr(device_module, "torch_sees_cuda", lambda: True)
    monkeypatch.setattr(embedder_module, "machine_threads", lambda: 16)
    monkeypatch.setattr(embedder_module, "MIN_TEXTS", 8)
    monkeypatch.setattr(embedder_module, "WorkerPool", RecordingPool)
    in_process = CountingEncoder()
    monkeypatch.setattr(embedder_module, "load_encoder", lambda _model, _device: in_process)
    RecordingPool.made = []
    texts = [f"text {i}" for i in range(1100)]

    matrix = Embedder("fake", cache_dir=tmp_path, device=device, workers=asked).embed(texts)

    assert RecordingPool.made == ([("fake", workers, device)] if workers is not None else [])
    assert len(in_process.seen) == (len(texts) if workers is None else 0)
    np.testing.assert_allclose(matrix, CountingEncoder().encode(texts), atol=1e-6)


def test_a_streamed_fill_starts_its_workers_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batch after batch, the same workers serve (each start loads the encoder in every worker);
    they stop when the fill ends, and embed calls outside it start and stop their own."""
    from harness.evaluation.embedders import embed_streamed

    monkeypatch.setattr(embedder_module, "machine_threads", lambda: 4)
    monkeypatch.setattr(embedder_module, "MIN_TEXTS", 8)
    monkeypatch.setattr(embedder_module, "WorkerPool", RecordingPool)
    RecordingPool.made, RecordingPool.closed = [], 0
    embedder = Embedder("fake", cache_dir=tmp_path, device="cpu")
    texts = [f"text {i}" for i in range(1000)]

    counted = embed_streamed(lambda: iter(texts), embedder, batch=200)

    assert (counted.texts, counted.computed) == (1000, 1000)
    assert (RecordingPool.made, RecordingPool.closed) == ([("fake", 4, "cpu")], 1)
    for part in (["a", "b"] * 20, ["c", "d"] * 20):
        embedder.embed([f"{t} {i}" for i, t in enumerate(part)])
    assert (len(RecordingPool.made), RecordingPool.closed) == (3, 3)
