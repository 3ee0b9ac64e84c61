"""Sentence embeddings for vector and hybrid retrieval: local encoders behind a text-hash cache."""

from harness.embeddings.cache import EmbeddingCache, model_folder, text_key
from harness.embeddings.device import Device, machine_threads, parse_device, resolve_device
from harness.embeddings.embedder import Embedder, default_cache_dir, default_models_dir
from harness.embeddings.model import (
    DEFAULT_MODEL,
    ENCODERS,
    INT8_MODEL,
    KNOWN_DIMENSIONS,
    STATIC_MODEL,
    EmbedExtraMissing,
    TextEncoder,
    load_encoder,
)

__all__ = [
    "DEFAULT_MODEL",
    "ENCODERS",
    "INT8_MODEL",
    "KNOWN_DIMENSIONS",
    "STATIC_MODEL",
    "Device",
    "EmbedExtraMissing",
    "Embedder",
    "EmbeddingCache",
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
