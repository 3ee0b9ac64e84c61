"""The int8 encoder: the float MiniLM exported to ONNX once, dynamically quantized, run by ONNX Runtime.

sentence-transformers' own ONNX backend needs optimum-onnx, whose releases require transformers
< 4.58 (this project runs 5.x), so the export is done with torch's ONNX exporter and the
quantization with ONNX Runtime's `quantize_dynamic` (per-channel int8 weights, dynamic int8
activations: the settings sentence-transformers' `export_dynamic_quantized_onnx_model` applies
through optimum's AVX512-VNNI config). Pooling and normalisation follow the float model: the mean
of the token vectors under the attention mask, scaled to unit length.

Dynamic quantization scales activations per batch, so a text's int8 vector depends slightly on
the texts batched with it: runs that must agree exactly,
such as the shards of one run, read their vectors from one cache (`harness embed --dataset`).
"""

from __future__ import annotations

import json
import logging
import shutil
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from harness.embeddings.build import build_once
from harness.embeddings.device import Device, machine_threads
from harness.embeddings.model import EmbedExtraMissing, unit_rows
from harness.errors import HarnessError

MODEL_FILE = "model_int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class OnnxInt8Encoder:
    """ONNX Runtime on the CPU with one intra-op thread per core this process may use."""

    def __init__(self, name: str, folder: Path, max_tokens: int):
        import onnxruntime
        from tokenizers import Tokenizer

        self.name = name
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = machine_threads()
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.enable_padding()
        self._dimensions = int(self._session.get_outputs()[0].shape[-1])

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            encoded = self._tokenizer.encode_batch(list(texts[start : start + batch_size]))
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (hidden,) = self._session.run(None, feed)
            pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            rows[start : start + len(encoded)] = unit_rows(pooled)
        return rows


def load_int8(name: str, source: Path, models_dir: Path, device: Device) -> OnnxInt8Encoder:
    """The quantized model from `models_dir`, exported there first if it is not yet."""
    if device is Device.CUDA:
        raise HarnessError(
            f"{name} runs on the CPU only (dynamically quantized int8 kernels): use --device cpu, "
            "or the float model on cuda"
        )
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        raise EmbedExtraMissing(
            f"{name} needs onnxruntime: install the embed extra (pip install -e '.[embed]')"
        ) from exc
    folder = models_dir / name
    if not (folder / MODEL_FILE).is_file():
        build_once(folder, lambda scratch: export_int8(source, scratch))
    return OnnxInt8Encoder(name, folder, _max_tokens(source))


def _max_tokens(source: Path) -> int:
    config = json.loads((source / "sentence_bert_config.json").read_text(encoding="utf-8"))
    pooling = json.loads((source / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    if not pooling.get("pooling_mode_mean_tokens"):
        raise HarnessError(f"{source}: the int8 encoder implements mean pooling only")
    return int(config["max_seq_length"])


def export_int8(source: Path, folder: Path) -> None:
    """Export the transformer of `source` to ONNX and write its int8 quantization and tokenizer to `folder`."""
    try:
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from transformers import AutoModel
    except ImportError as exc:
        raise EmbedExtraMissing("exporting the int8 encoder needs torch, transformers and onnxruntime") from exc

    class _Hidden(torch.nn.Module):
        """Keyword arguments in, token vectors out: the exporter passes inputs by position."""

        def __init__(self, model: Any):
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = AutoModel.from_pretrained(str(source)).eval()
    example = torch.ones((2, 8), dtype=torch.int64)
    float_path = folder / "model_float.onnx"
    # the TorchScript exporter is deprecated in favour of one that needs onnxscript: it still exports
    # this BERT exactly (checked against the float model in the tests), so its warnings are muted
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Hidden(model),
            (example, example, torch.zeros_like(example)),
            str(float_path),
            input_names=list(_INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in (*_INPUTS, "last_hidden_state")},
            opset_version=17,
            dynamo=False,
        )
    with _quiet_root_logger():  # ONNX Runtime logs a pre-processing hint whose shape inference fails on BERT
        quantize_dynamic(str(float_path), str(folder / MODEL_FILE), weight_type=QuantType.QInt8, per_channel=True)
    float_path.unlink()
    shutil.copy(source / TOKENIZER_FILE, folder / TOKENIZER_FILE)


@contextmanager
def _quiet_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
