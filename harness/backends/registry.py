"""Backend names the CLI and pytest accept, and how each one is opened."""

from __future__ import annotations

from harness.backends.base import Backend
from harness.backends.embedded import EmbeddedBackend
from harness.errors import HarnessError

BACKENDS = ("embedded",)


def check_backend(name: str) -> str:
    if name not in BACKENDS:
        raise HarnessError(f"unknown backend {name!r} (choose from: {', '.join(BACKENDS)})")
    return name


def open_backend(name: str) -> Backend:
    check_backend(name)
    return EmbeddedBackend()
