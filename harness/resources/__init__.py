"""The one place that knows where the harness's folders are: cases/, containers/, docker/, shared data.

In a checkout (editable install or `PYTHONPATH`) they are the top-level folders beside `harness/`.
A built wheel ships them as package data under `harness/resources/` (setup.py maps them there),
read through `importlib.resources`.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DATA_FOLDERS = ("cases", "containers", "docker")
"""Top-level folders of the checkout that a wheel carries as `harness.resources.<name>`."""


def checkout_root() -> Path | None:
    """The source checkout this package runs from, or None for an installed wheel."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "harness").is_dir() else None


def data_root() -> Path:
    """The folder holding cases/, containers/ and docker/: the wheel's package data, else the checkout."""
    packaged = files(__name__)
    if isinstance(packaged, Path) and all((packaged / name).is_dir() for name in DATA_FOLDERS):
        return packaged
    checkout = checkout_root()
    if checkout is None:
        raise RuntimeError(f"{packaged} has none of {', '.join(DATA_FOLDERS)}: a broken installation")
    return checkout


def shared_datasets_dir() -> Path:
    """`../shared/datasets` beside the checkout; for an installed wheel, beside the current directory."""
    return (checkout_root() or Path.cwd()).parent / "shared" / "datasets"
