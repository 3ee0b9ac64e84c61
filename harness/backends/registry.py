"""Backend names and how to connect to each one, given a URL.

Client libraries are imported on use, so a user who installed only what one backend needs can
still run it (a missing extra is a one-line `BackendUnavailable`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from harness.backends.base import Backend
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.backends.postgres import ExtensionPolicy

EMBEDDED = "embedded"
SERVER_BACKENDS = ("postgres", "redis", "valkey", "atlas")
BACKENDS = (EMBEDDED, *SERVER_BACKENDS)
LOCAL_BACKENDS = (EMBEDDED, "postgres", "redis", "valkey")
"""What the default test run covers: every backend whose image can be built without a registry."""


def check_backend(name: str) -> str:
    if name not in BACKENDS:
        raise HarnessError(f"unknown backend {name!r} (choose from: {', '.join(BACKENDS)})")
    return name


def connect(
    name: str, url: str, *, extension: ExtensionPolicy = "create", on_create: Callable[[int], None] | None = None
) -> Backend:
    """A client for a running server; redis uses its Query Engine when the server has one.

    `extension` and `on_create` say what postgres may do about pgvector (see PostgresBackend.connect).
    """
    if name == "postgres":
        from harness.backends.postgres import PostgresBackend

        return PostgresBackend.connect(url, extension=extension, on_create=on_create)
    if name == "redis":
        from harness.backends.redis_core import RedisCoreBackend, open_client
        from harness.backends.redis_search import RedisSearchBackend, detect

        probe = open_client(url, name, protocol=2)
        try:
            has_query_engine = detect(probe)
        finally:
            probe.close()
        return RedisSearchBackend.connect(url) if has_query_engine else RedisCoreBackend.connect(url, name)
    if name == "valkey":
        from harness.backends.redis_core import RedisCoreBackend

        return RedisCoreBackend.connect(url, name)
    if name == "atlas":
        from harness.backends.atlas import AtlasBackend

        return AtlasBackend.connect(url)
    raise HarnessError(f"backend {check_backend(name)!r} is not a server")
