"""The encoders, in one list: the `--model` choices, cache folders, vector sizes and device choice derive from it.

Each encoder declares its `EncoderSpec` in its own module; this list collects them, float first.
Any other name is a sentence-transformers model loaded as a local path or an already cached hub
name (`sentence_transformer.any_model`). Tests that add an encoder patch `SPECS` for their own
duration; everything below reads it on each call.
"""

from __future__ import annotations

from pathlib import Path

from harness.embeddings.device import Device, machine_threads
from harness.embeddings.encoder import EncoderSpec, TextEncoder
from harness.embeddings.onnx_int8 import INT8
from harness.embeddings.packaged import DEFAULT_MODEL
from harness.embeddings.paths import default_models_dir
from harness.embeddings.sentence_transformer import FLOAT, any_model
from harness.embeddings.static import STATIC

SPECS: tuple[EncoderSpec, ...] = (FLOAT, INT8, STATIC)


def names() -> tuple[str, ...]:
    """The offline `--model` choices, float first."""
    return tuple(s.name for s in SPECS)


def spec(name: str) -> EncoderSpec:
    """The listed encoder `name`, else a sentence-transformers model of that name or path."""
    return next((s for s in SPECS if s.name == name), None) or any_model(name)


def load_encoder(
    name: str = DEFAULT_MODEL, device: Device = Device.CPU, models_dir: Path | None = None, threads: int | None = None
) -> TextEncoder:
    """Load the encoder `name` on a resolved device (cpu or cuda) with up to `threads` CPU threads (default:
    every core this process may use); derived models are built into `models_dir`."""
    folder = models_dir if models_dir is not None else default_models_dir()
    return spec(name).load(name, device, folder, threads if threads is not None else machine_threads())
