"""The backends, in one list: every name, option, marker and matrix of backends derives from it.

Each backend declares itself in its own module (a `BackendDescriptor`, see descriptor.py); this
list is the one place that collects them, in the order they are listed everywhere. An explicit
list rather than entry points: the order is stated, a backend is found by reading one line, and
a checkout works without reinstalling its package metadata. Tests that add a backend patch
`DESCRIPTORS` for their own duration; everything below reads it on each call.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.backends import atlas, embedded, postgres, redis_core, redis_search
from harness.backends.base import Backend
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, ExtensionPolicy, UrlScheme
from harness.errors import HarnessError

DESCRIPTORS: tuple[BackendDescriptor, ...] = (
    embedded.DESCRIPTOR,
    postgres.DESCRIPTOR,
    redis_search.REDIS,
    redis_core.VALKEY,
    atlas.DESCRIPTOR,
)


def names() -> tuple[str, ...]:
    return tuple(d.name for d in DESCRIPTORS)


def servers() -> tuple[str, ...]:
    """Backends that run in a container of their own."""
    return tuple(d.name for d in DESCRIPTORS if d.server is not None)


def default_run() -> tuple[str, ...]:
    """What the default test run covers: every backend whose image can be built without a registry."""
    return tuple(d.name for d in DESCRIPTORS if d.local)


def url_schemes() -> dict[str, UrlScheme]:
    """Every server URL scheme a backend declares (redis and valkey share theirs)."""
    return {name: scheme for d in DESCRIPTORS for name, scheme in d.url_schemes.items()}


def descriptor(name: str) -> BackendDescriptor:
    found = next((d for d in DESCRIPTORS if d.name == name), None)
    if found is None:
        raise HarnessError(f"unknown backend {name!r} (choose from: {', '.join(names())})")
    return found


def check_backend(name: str) -> str:
    return descriptor(name).name


def container_spec(name: str) -> str:
    """The container spec (containers/<spec>.toml) that runs backend `name`."""
    server = descriptor(name).server
    if server is None:
        raise HarnessError(f"backend {name!r} runs in process: it has no container")
    return server


def connect(
    name: str,
    url: str | None = None,
    *,
    extension: ExtensionPolicy = "create",
    on_create: Callable[[int], None] | None = None,
) -> Backend:
    """A client for the server of backend `name` at `url`, or the in-process engine (no `url`).

    `extension` and `on_create` say what the backend may do server-wide (see ConnectOptions).
    """
    found = descriptor(name)
    if (found.server is None) != (url is None):
        raise HarnessError(
            f"backend {name!r} is not a server: it takes no URL"
            if found.server is None
            else f"backend {name!r} is a server: give its URL"
        )
    return found.connect(url, ConnectOptions(extension, on_create))
