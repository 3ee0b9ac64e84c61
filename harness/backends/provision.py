"""Bringing a backend up for one process: embedded in memory, servers in their own container.

Each server runs in a container labelled with this run and removed when the block ends, on
Ctrl-C and on errors too; containers left by a crashed earlier run are removed first. On a
server the user gives (`--url`), what the run creates is recorded in the ledger (recorded.py).
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from harness.backends.base import Backend
from harness.backends.recorded import open_recorded
from harness.backends.registry import connect, container_spec, descriptor
from harness.errors import BackendUnavailable, HarnessError
from harness.resources import data_root

if TYPE_CHECKING:
    from harness.containers import RunningContainer


_CONTAINERS_EXTRA = frozenset({"docker", "testcontainers", "filelock", "yaml"})
"""The top-level modules of the containers extra's packages."""


def require_containers() -> None:
    """Import `harness.containers`, or a one-line error naming the extra where one of its packages
    (the docker SDK) is not installed: the in-process engine and `--url` servers need none of them."""
    try:
        import harness.containers  # noqa: F401 - imported to see that it can be
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in _CONTAINERS_EXTRA:
            raise
        raise HarnessError(
            "containers need the containers extra (the docker SDK): pip install 'memory-retrieval-harness[containers]'"
        ) from None


def start_server(
    name: str, run_id: str, host_port: int | None = None, owner_pid: int | None = None
) -> tuple[str, RunningContainer]:
    """Start `name`'s container; returns (connection URL with its password, RunningContainer).
    One-line errors only."""
    require_containers()
    from harness.containers import ContainerError, load_spec, remove_leftovers, start_container

    try:
        remove_leftovers()
        spec = load_spec(container_spec(name), data_root())
        container = start_container(spec, run_id, host_port=host_port, owner_pid=owner_pid)
    except ContainerError as exc:
        raise BackendUnavailable(str(exc)) from None
    return container.url, container


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


@contextmanager
def backend_session(
    name: str,
    url: str | None = None,
    *,
    allow_extension: bool = False,
    notice: Callable[[str], None] = _to_stderr,
    on_url: Callable[[str | None], None] = lambda _url: None,
) -> Iterator[Backend]:
    """The backend for one CLI run: embedded, a given server URL, or a container of our own.

    On a given URL every namespace is recorded in the ledger (see ledger.py), pgvector's extension
    is created only if `allow_extension` (and dropped at the end), and `notice` gets one line about
    leftovers of killed runs or an extension kept because something else uses it. `on_url` gets
    the server's URL (None for an in-process engine), for a system under test that connects on its own.
    """
    if descriptor(name).server is None:
        on_url(None)
        backend: Backend = connect(name)
        try:
            yield backend
        finally:
            backend.close()
        return
    if url is not None:
        on_url(url)
        backend = open_recorded(name, url, allow_extension, notice)
        try:
            yield backend
        finally:
            backend.close()
        return
    server_url, container = start_server(name, f"cli-{uuid.uuid4().hex[:12]}")
    try:
        on_url(server_url)
        backend = connect(name, server_url)
        try:
            yield backend
        finally:
            backend.close()
    finally:
        container.stop()
