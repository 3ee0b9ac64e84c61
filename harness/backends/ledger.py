"""A local record of what runs create on servers they did not start (`--url`).

A run killed by SIGKILL (or anything it cannot catch) cannot drop its namespaces, and nothing on
a user's server says which schemas, key prefixes or collections are the harness's. So each one is
recorded here before it is created and forgotten after it is dropped: `harness down --url` then
removes exactly what killed runs left, never the server's own data, and the next run on that
server can say that some exist.

One file per entry and process under `<state dir>/url-ledger/<server>/`: concurrent runs never
write the same file, and each file appears whole (written aside, then renamed). Each entry carries
a digest (HMAC-SHA256 under a key kept beside the ledger, readable by its owner only) of what it
records: `harness down --url` drops only what an entry with a matching digest names, so a forged
or edited entry (or one from before digests) never makes it drop a server's own data. The state dir is
`$HARNESS_STATE_DIR`, else `$XDG_STATE_HOME/harness`, else `~/.local/state/harness`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import socket
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from harness.backends import registry
from harness.errors import HarnessError
from harness.files import atomic_write
from harness.messages import is_conninfo, redacted
from harness.processes import process_alive

STATE_DIR_ENV = "HARNESS_STATE_DIR"
NAMESPACE: Literal["namespace"] = "namespace"
EXTENSION: Literal["extension"] = "extension"


def state_dir() -> Path:
    if os.environ.get(STATE_DIR_ENV):
        return Path(os.environ[STATE_DIR_ENV])
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "harness"


def server_identity(url: str) -> str:
    """The server and database a URL (or a libpq `key=value` string) names, without credentials or
    options (as printed); one that cannot name a server is a one-line error, its secrets masked."""
    if is_conninfo(url):
        return registry.conninfo_server(url)
    if url.partition(":")[0].lower() in HTTP_SCHEMES:  # urlsplit would raise on a bad IPv6 host, unmasked
        return _http_identity(url)
    schemes = registry.url_schemes()
    expected = ", ".join(f"{name}://" for name in schemes)
    try:
        parts = urlsplit(url)
        scheme = schemes.get(parts.scheme)
        if scheme is None or not parts.hostname:
            raise ValueError(f"expected {expected} followed by HOST...")
        port = parts.port or scheme.port
    except ValueError as exc:
        raise HarnessError(f"--url {redacted(url)!r}: {exc}") from None
    host = parts.hostname.lower()
    netloc = f"[{host}]" if ":" in host else host
    path = parts.path.rstrip("/") or scheme.path
    return urlunsplit((scheme.canonical, f"{netloc}:{port}" if port else netloc, path, "", ""))


HTTP_SCHEMES = {"http": 80, "https": 443}
"""A memory system's HTTP service (`--system http:URL`) keeps its run namespaces in a ledger too."""


def _http_identity(url: str) -> str:
    try:
        parts = urlsplit(url)
        port = parts.port or HTTP_SCHEMES[parts.scheme]
    except ValueError as exc:
        raise HarnessError(f"--url {redacted(url)!r}: {exc}") from None
    if not parts.hostname:
        raise HarnessError(f"--url {redacted(url)!r}: expected http://HOST...")
    host = parts.hostname.lower()
    netloc = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, f"{netloc}:{port}", parts.path.rstrip("/"), "", ""))


@dataclass(frozen=True)
class Entry:
    """Something one run created on a server: a namespace, or the postgres extension (with its oid)."""

    backend: str
    kind: Literal["namespace", "extension"]
    name: str
    pid: int
    host: str
    details: Mapping[str, Any]
    path: Path
    authentic: bool = True
    """Its digest matches what it records: the harness wrote it (`down --url` drops only these)."""

    @property
    def owner_alive(self) -> bool:
        """True while the run that wrote it may still be using it (its process, on this host)."""
        return self.host != socket.gethostname() or process_alive(self.pid)


class Ledger:
    """The entries of one server; `record` before creating, `forget` after dropping."""

    def __init__(self, url: str, root: Path | None = None):
        self.server = server_identity(url)
        digest = hashlib.sha256(self.server.encode()).hexdigest()[:16]
        self.folder = (root or state_dir()) / "url-ledger" / digest
        self._key_file = self.folder.parent / ".key"

    def _key(self) -> bytes:
        """The ledger's HMAC key, made on first use (owner-only, linked into place whole, so two
        runs making it at once agree on one)."""
        try:
            return self._key_file.read_bytes()
        except FileNotFoundError:
            pass
        self._key_file.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=self._key_file.parent, prefix=".key-", suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(secrets.token_bytes(32))
            with contextlib.suppress(FileExistsError):
                os.link(temp, self._key_file)
        finally:
            os.unlink(temp)
        return self._key_file.read_bytes()

    def _digest(self, data: Mapping[str, Any]) -> str:
        body = json.dumps({k: v for k, v in data.items() if k != "digest"}, sort_keys=True).encode("utf-8")
        return hmac.new(self._key(), body, hashlib.sha256).hexdigest()

    def _file(self, kind: str, name: str) -> Path:
        # The pid too: two runs' entries never share a file, whatever the names they record.
        return self.folder / f"{kind}-{name}.{os.getpid()}.json"

    def record(self, backend: str, kind: Literal["namespace", "extension"], name: str, **details: Any) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {
            "server": self.server,
            "backend": backend,
            "kind": kind,
            "name": name,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "created_at": time.time(),
            "details": details,
        }
        atomic_write(self._file(kind, name), json.dumps({**data, "digest": self._digest(data)}))

    def forget(self, kind: str, name: str) -> None:
        self._file(kind, name).unlink(missing_ok=True)

    def entries(self) -> list[Entry]:
        found = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                found.append(
                    Entry(
                        backend=str(data["backend"]),
                        kind=data["kind"],
                        name=str(data["name"]),
                        pid=int(data["pid"]),
                        host=str(data["host"]),
                        details=dict(data.get("details") or {}),
                        path=path,
                        authentic=data.get("server") == self.server
                        and hmac.compare_digest(str(data.get("digest", "")), self._digest(data)),
                    )
                )
            except (OSError, ValueError, KeyError, TypeError):
                continue  # removed meanwhile, or not ours to interpret
        return found

    def leftovers(self) -> list[Entry]:
        """Entries of runs that are gone: what `harness down --url` removes."""
        return [e for e in self.entries() if not e.owner_alive]
