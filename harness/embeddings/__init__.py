"""Sentence embeddings for vector and hybrid retrieval: local encoders behind a text-hash cache.

The encoders are listed once, as specs (`registry.SPECS`); see `encoder.py` for what a spec declares.
"""

from harness.embeddings.cache import EmbeddingCache, model_folder, text_key
from harness.embeddings.device import Device, machine_threads, parse_device, resolve_device
from harness.embeddings.embedder import Embedder
from harness.embeddings.encoder import EmbedExtraMissing, EncoderSpec, TextEncoder
from harness.embeddings.packaged import DEFAULT_MODEL
from harness.embeddings.paths import default_cache_dir, default_models_dir
from harness.embeddings.registry import load_encoder

__all__ = [
    "DEFAULT_MODEL",
    "Device",
    "EmbedExtraMissing",
    "Embedder",
    "EmbeddingCache",
    "EncoderSpec",
    "TextEncoder",
    "default_cache_dir",
    "default_models_dir",
    "load_encoder",
    "machine_threads",
    "model_folder",
    "parse_device",
    "resolve_device",
    "text_key",
]
