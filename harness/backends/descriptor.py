"""What the harness knows about one backend, declared next to its engine (see registry.py).

Everything that lists or opens backends derives from these: the registry's names, `harness up`,
`harness down --url`, `harness backends` (and so the CI matrix), the pytest plugin's options and
markers, and the contract tests. A backend module imports its client library only inside
`connect`, so listing backends needs no extra installed and a missing one is a one-line
`BackendUnavailable` when the backend is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from harness.backends.base import Backend

ExtensionPolicy = Literal["create", "require", "skip"]
"""What a run may do about a server-wide extension its backend needs (postgres: pgvector):
create it when missing, require it, or skip it (clean-up, which needs no vectors)."""


@dataclass(frozen=True)
class ConnectOptions:
    """How a run may treat a server; `on_create` gets the id of an extension the run created, so
    the `--url` ledger can record it. Backends that create nothing server-wide ignore both."""

    extension: ExtensionPolicy = "create"
    on_create: Callable[[int], None] | None = None


@dataclass(frozen=True)
class ContractNotes:
    """What the contract tests (tests/backends/contract.py) need to know about this engine.

    `tolerance`: how close its scores come to the reference BM25 (float32 engines are looser);
    `examples`: property-test examples per check (a round trip to a server costs time);
    `engine`: the engine to check when `connect` may choose another for a server (None: connect's).
    """

    tolerance: float = 1e-6
    examples: int = 25
    engine: Callable[[str], Backend] | None = None


@dataclass(frozen=True)
class UrlScheme:
    """How a `--url` of this scheme names its server, for the ledger (ledger.py): the scheme it is
    filed under (aliases share one), the port meant when none is given, and the database path
    meant when none is."""

    canonical: str
    port: int
    path: str = ""


@dataclass(frozen=True)
class BackendDescriptor:
    """One backend: its name, how to open it and what the tools around it say and do about it.

    `connect(url, options)`: a client for a running server at `url`, or the engine itself for an
    in-process backend (`url` None). Server backends' clients also offer `drop_namespace(name)`,
    which `harness down --url` uses for what killed runs left.
    `server`: the container spec (containers/<server>.toml) that runs it; None: in process.
    `local`: in the default test run (its image builds without a registry, or it needs none).
    `sample_query`: a shell command that shows the seeded namespace, `{url}` filled in by
    `harness up`; None: it prints none.
    `url_schemes`: the schemes of its server URLs, by the name written in a URL.
    `conninfo`: the server a connection string of its client library names, for a backend whose
    `--url` may be one instead of a URL (postgres: libpq's `key=value`), as the ledger files it
    (`scheme://HOST:PORT/DB`); a string that names none is a one-line `HarnessError`.
    """

    name: str
    connect: Callable[[str | None, ConnectOptions], Backend]
    server: str | None = None
    local: bool = True
    sample_query: str | None = None
    contract: ContractNotes = field(default_factory=ContractNotes)
    url_schemes: Mapping[str, UrlScheme] = field(default_factory=dict)
    conninfo: Callable[[str], str] | None = None


def server_url(url: str | None) -> str:
    """The URL a server backend's `connect` was given (the registry never calls one without)."""
    if url is None:
        raise ValueError("a server backend needs a URL")
    return url
