"""The int8 encoder: the float MiniLM exported to ONNX once, fused, dynamically quantized, run by ONNX Runtime.

sentence-transformers' own ONNX backend needs optimum-onnx, whose releases require transformers
< 4.58 (this project runs 5.x), so the export is done by hand in optimum's O2-plus-quantization
order: torch's ONNX exporter (eager attention, the pattern ONNX Runtime recognises), ONNX Runtime's
transformer optimizer (fused Attention, SkipLayerNormalization, BiasGelu, EmbedLayerNormalization),
then `quantize_dynamic` (per-channel int8 weights, dynamic int8 activations, as sentence-transformers'
`export_dynamic_quantized_onnx_model` applies through optimum's AVX512-VNNI config). The fusion
roughly doubles the int8 speed-up: unfused, the attention's small matrix products and softmax
dominate once the projections are int8. Pooling and normalisation follow the float model: the mean
of the token vectors under the attention mask, scaled to unit length.

Dynamic quantization scales activations per call (one scale per tensor), so in a batch a text's
int8 vector would depend on the texts beside it: each text is run alone, so its vector is a
function of the text only and shards embedded on different machines join into one cache. The
number of intra-op threads does not change a vector (the tests compare one thread with several),
so the embedder runs one session with a thread per core, or worker processes with one each.
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

from harness.embeddings.device import Device
from harness.embeddings.encoder import EmbedExtraMissing, EncoderSpec, unit_rows
from harness.embeddings.packaged import DEFAULT_MODEL, float_source
from harness.errors import HarnessError
from harness.files import build_once

EXPORT_FORMAT = "fused-int8-v2"
"""The export recipe's name: a model is built into `<models>/<name>/<format>`, so an export made by
another recipe (the unfused one kept its files directly in `<models>/<name>`) is never loaded."""
VECTOR_RECIPE = f"{EXPORT_FORMAT}.per-text"
"""How its vectors are made (the spec's `recipe`, the cache folder's tag): this export, one text per
call. The same export once ran batches, whose vectors were cached under `@fused-int8-v2`; those
depend on their batch-mates and are never read as these."""
MODEL_FILE = "model_int8.onnx"
TOKENIZER_FILE = "tokenizer.json"
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class OnnxInt8Encoder:
    """ONNX Runtime on the CPU with `threads` intra-op threads."""

    def __init__(self, name: str, folder: Path, max_tokens: int, threads: int):
        import onnxruntime
        from tokenizers import Tokenizer

        self.name = name
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        # on a machine shared with other work, idle workers spinning for the next op steal its cores
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.no_padding()  # MiniLM's tokenizer.json pads every text to 128 tokens
        self._dimensions = int(self._session.get_outputs()[0].shape[-1])

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:  # noqa: ARG002 - one text per call
        """Unit rows of `texts`, one ONNX Runtime call per text (no padding, no shared activation
        scale); `batch_size` is ignored."""
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, encoded in enumerate(self._tokenizer.encode_batch(list(texts))):
            ids = np.array([encoded.ids], dtype=np.int64)
            mask = np.array([encoded.attention_mask], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (hidden,) = self._session.run(None, feed)
            pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            rows[row] = unit_rows(pooled)[0]
        return rows


def load_int8(name: str, device: Device, models_dir: Path, threads: int) -> OnnxInt8Encoder:
    """The quantized model from `models_dir` (exported there first from the packaged float model if it
    is not yet), run with `threads` intra-op threads."""
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
    source = float_source(name)
    folder = models_dir / name / EXPORT_FORMAT
    if not (folder / MODEL_FILE).is_file():
        build_once(folder, lambda scratch: export_int8(source, scratch))
    return OnnxInt8Encoder(name, folder, _max_tokens(source), threads)


INT8 = EncoderSpec(f"{DEFAULT_MODEL}-int8", load_int8, recipe=VECTOR_RECIPE, dimensions=384, gpu=False)
"""The float MiniLM exported, fused and quantized here; ONNX Runtime runs it on the CPU only."""


def _max_tokens(source: Path) -> int:
    config = json.loads((source / "sentence_bert_config.json").read_text(encoding="utf-8"))
    pooling = json.loads((source / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
    if not pooling.get("pooling_mode_mean_tokens"):
        raise HarnessError(f"{source}: the int8 encoder implements mean pooling only")
    return int(config["max_seq_length"])


def export_int8(source: Path, folder: Path) -> None:
    """Export the transformer of `source` to ONNX, fuse it, and write its int8 quantization and tokenizer to `folder`."""
    try:
        import onnx
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.transformers.optimizer import optimize_model
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

    # eager attention exports as the MatMul/Softmax subgraph the optimizer fuses; SDPA's export is not matched
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()
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
    fused_path = folder / "model_fused.onnx"
    with _quiet_root_logger():  # the optimizer and the quantizer log hints meant for other model kinds
        fused = optimize_model(
            str(float_path),
            model_type="bert",
            num_heads=model.config.num_attention_heads,
            hidden_size=model.config.hidden_size,
        )
        fused.save_model_to_file(str(fused_path))
        quantize_dynamic(
            str(fused_path),
            str(folder / MODEL_FILE),
            weight_type=QuantType.QInt8,
            per_channel=True,
            # shape inference cannot type the outputs of the fused (com.microsoft) ops: they are float
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
    float_path.unlink()
    fused_path.unlink()
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
