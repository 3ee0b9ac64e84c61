"""Sentence embeddings for vector and hybrid retrieval: a local model behind a text-hash cache."""

from harness.embeddings.cache import EmbeddingCache, model_folder, text_key
from harness.embeddings.embedder import Embedder, default_cache_dir
from harness.embeddings.model import (
    DEFAULT_MODEL,
    KNOWN_DIMENSIONS,
    EmbedExtraMissing,
    Encoder,
    TextEncoder,
    load_encoder,
)

__all__ = [
    "DEFAULT_MODEL",
    "KNOWN_DIMENSIONS",
    "EmbedExtraMissing",
    "Embedder",
    "EmbeddingCache",
    "Encoder",
    "TextEncoder",
    "default_cache_dir",
    "load_encoder",
    "model_folder",
    "text_key",
]
