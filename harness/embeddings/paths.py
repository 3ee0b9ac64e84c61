"""Where vectors and the encoders built here are kept: from the environment, never hard-coded."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """`$HARNESS_CACHE_DIR`, else `$XDG_CACHE_HOME/memory-harness/embeddings`, else under `~/.cache`."""
    if explicit := os.environ.get("HARNESS_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memory-harness" / "embeddings"


def default_models_dir() -> Path:
    """Where derived encoders (int8 export, static distillation) are built once: `.models` in the cache."""
    return default_cache_dir() / ".models"
