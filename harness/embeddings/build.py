"""Derived models (int8 export, static distillation) are built once into the models folder, atomically."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def build_once(folder: Path, build: Callable[[Path], None]) -> None:
    """Run `build` into a scratch folder beside `folder`, then rename it into place.

    A crash leaves no half-built model; of two processes building at once, the first rename wins
    and the other's result is discarded (both built the same thing from the same source).
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
    try:
        build(scratch)
        try:
            os.rename(scratch, folder)
        except OSError:
            if not folder.is_dir():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
