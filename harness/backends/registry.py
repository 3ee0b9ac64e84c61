"""The backends, in one list: every name, option, marker and matrix of backends derives from it.

Each backend declares itself in its own module (a `BackendDescriptor`, see descriptor.py); this
list is the one place that collects them, in the order they are listed everywhere. An explicit
list rather than entry points: the order is stated, a backend is found by reading one line, and
a checkout works without reinstalling its package metadata. Tests that add a backend patch
`DESCRIPTORS` for their own duration; everything below reads it on each call.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from harness.backends import atlas, embedded, postgres, redis_core, redis_search
from harness.backends.base import Backend
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, ExtensionPolicy, UrlScheme
from harness.errors import HarnessError
from harness.messages import is_conninfo, redacted

DESCRIPTORS: tuple[BackendDescriptor, ...] = (
    embedded.DESCRIPTOR,
    postgres.DESCRIPTOR,
    redis_search.REDIS,
    redis_core.REDIS_CORE,
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


def conninfo_server(conninfo: str) -> str:
    """The server a connection string names, read by the backend whose client's strings they are."""
    read = next((d.conninfo for d in DESCRIPTORS if d.conninfo is not None), None)
    if read is None:
        raise HarnessError(f"--url {redacted(conninfo)!r}: not a URL (expected SCHEME://HOST...)")
    return read(conninfo)


def check_url(name: str, url: str) -> None:
    """A `--url` that cannot name backend `name`'s server fails here, in one line, before anything
    starts: one of its URL schemes with a valid port, or a connection string its descriptor reads."""
    found = descriptor(name)
    if found.server is None:
        raise HarnessError(f"--url names a running server; the {name} backend runs in process (drop --url)")
    if found.conninfo is not None and is_conninfo(url):
        found.conninfo(url)
        return
    schemes = tuple(found.url_schemes)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        raise HarnessError(f"--url {redacted(url)!r}: {exc}") from None
    if parts.scheme not in schemes:
        raise HarnessError(f"--url {redacted(url)!r} is not a {name} URL (expected {schemes[0]}://HOST:PORT...)")


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
