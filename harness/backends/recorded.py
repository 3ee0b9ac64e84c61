"""Runs on a server the harness did not start (`--url`): every namespace recorded in the ledger.

The recording wraps the backend, so suite runs and dataset runs (anything that goes through
`create_index` and `drop`) are covered without knowing about it. It also gives every namespace
this run's own suffix: callers may ask for fixed names (`dataset_0_turns`), and creating a
namespace replaces one of that name, which on a shared server may be another run's, or the
user's own data under a name that happens to match.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from harness.backends.base import Backend, BackendInfo, Filters, Hit, Index, IndexDoc, IndexSpec, Value
from harness.backends.ledger import EXTENSION, NAMESPACE, Entry, Ledger
from harness.backends.registry import connect
from harness.messages import one_line, redacted


class _Cleanable(Backend, Protocol):
    def drop_namespace(self, namespace: str) -> None: ...

    def drop_extension(self, oid: int) -> bool: ...


class RecordedIndex:
    """An index whose namespace leaves the ledger once it is dropped."""

    def __init__(self, index: Index, ledger: Ledger, namespace: str):
        self._index = index
        self._ledger = ledger
        self._namespace = namespace

    def load(self, docs: Sequence[IndexDoc]) -> None:
        self._index.load(docs)

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        self._index.upsert(docs)

    def wait_ready(self, expected: int, timeout: float) -> None:
        self._index.wait_ready(expected, timeout)

    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        return self._index.attributes(ids)

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        return self._index.lexical(terms, filters, limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        return self._index.vector(query, filters, limit)

    def drop(self) -> None:
        self._index.drop()
        self._ledger.forget(NAMESPACE, self._namespace)


class RecordedBackend:
    """A backend whose namespaces are in the ledger from before they exist until they are dropped,
    each named as asked plus this run's suffix (`_` and 8 hex digits).

    `extension_oid`: the postgres `vector` extension this run created (recorded too); `close`
    drops it unless something still uses it, which `notice` then reports.
    """

    def __init__(
        self, backend: Backend, ledger: Ledger, notice: Callable[[str], None], extension_oid: int | None = None
    ):
        self._backend = backend
        self._ledger = ledger
        self._notice = notice
        self._extension_oid = extension_oid
        self._suffix = f"_{uuid.uuid4().hex[:8]}"
        self.name = backend.name

    def info(self) -> BackendInfo:
        return self._backend.info()

    def create_index(self, namespace: str, spec: IndexSpec) -> RecordedIndex:
        """A creation that fails or is interrupted half-way (a signal mid-DDL, Atlas without
        mongot) is undone here: nobody else holds the namespace to drop it."""
        namespace += self._suffix
        self._ledger.record(self.name, NAMESPACE, namespace)
        try:
            index = self._backend.create_index(namespace, spec)
        except BaseException:
            self._undo(namespace)
            raise
        return RecordedIndex(index, self._ledger, namespace)

    def _undo(self, namespace: str) -> None:
        cleanable: _Cleanable = self._backend  # type: ignore[assignment]
        try:
            cleanable.drop_namespace(namespace)
        except Exception:  # noqa: BLE001 - the creation's own error is the one to report; the entry stays
            return
        self._ledger.forget(NAMESPACE, namespace)

    def close(self) -> None:
        try:
            if self._extension_oid is not None:
                self._release_extension(self._extension_oid)
        finally:
            self._backend.close()

    def _release_extension(self, oid: int) -> None:
        """Drop it, or say why not: a failure here (a lost server) must not replace the run's own
        outcome, an interruption included, and the ledger entry stays for `harness down --url`."""
        cleanable: _Cleanable = self._backend  # type: ignore[assignment]
        server = self._ledger.server
        try:
            dropped = cleanable.drop_extension(oid)
        except Exception as exc:  # noqa: BLE001 - reported in one line; the entry stays
            self._notice(
                f"harness: note: could not drop the 'vector' extension the harness created on {server}: "
                f"{one_line(exc)}; `harness down --url` drops it"
            )
            return
        if dropped:
            self._ledger.forget(EXTENSION, "vector")
        else:
            self._notice(
                f"harness: note: kept the 'vector' extension the harness created on {server}: "
                "something else uses it now; `harness down --url` drops it once unused"
            )


def open_recorded(name: str, url: str, allow_extension: bool, notice: Callable[[str], None]) -> RecordedBackend:
    """Connect to a user's server, saying first if killed runs left things there."""
    ledger = Ledger(url)
    left = ledger.leftovers()
    if left:
        what = " and ".join(sorted({f"{e.kind}(s)" for e in left}))
        notice(
            f"harness: note: {len(left)} {what} left on {ledger.server} by runs that were killed; "
            f"remove them with: harness down --url '{redacted(url)}'"
        )
    created: list[int] = []

    def record_extension(oid: int) -> None:
        ledger.record(name, EXTENSION, "vector", oid=oid)
        created.append(oid)

    backend = connect(name, url, extension="create" if allow_extension else "require", on_create=record_extension)
    return RecordedBackend(backend, ledger, notice, created[0] if created else None)


@dataclass
class Removal:
    """What `harness down --url` did on one server."""

    server: str
    removed: list[Entry] = field(default_factory=list)
    kept: list[tuple[Entry, str]] = field(default_factory=list)
    failed: list[tuple[Entry, str]] = field(default_factory=list)


def remove_leftovers(url: str, droppers: Mapping[str, Callable[[Entry], bool]] | None = None) -> Removal:
    """Drop what killed runs left on the server at `url`: only what the ledger names. `droppers`:
    per ledger `backend` that is no backend of the harness (a system's HTTP service), what drops an entry."""
    ledger = Ledger(url)
    result = Removal(ledger.server)
    entries = ledger.entries()
    live = {(e.kind, e.name) for e in entries if e.authentic and e.owner_alive}
    left: list[Entry] = []
    for entry in entries:
        if not entry.authentic:
            result.kept.append((entry, "its digest does not match what it records (not written by the harness): left"))
        elif entry.owner_alive:
            result.kept.append((entry, f"in use by a running harness (pid {entry.pid})"))
        elif (entry.kind, entry.name) in live:
            entry.path.unlink(missing_ok=True)  # a live run has reused the name: it is that run's now
        else:
            left.append(entry)
    # namespaces first: a vector column in one of them would keep the extension
    by_backend: dict[str, list[Entry]] = {}
    for entry in sorted(left, key=lambda e: e.kind != NAMESPACE):
        by_backend.setdefault(entry.backend, []).append(entry)
    for name, group in by_backend.items():
        dropper = (droppers or {}).get(name)
        backend: _Cleanable | None = (
            None if dropper is not None else connect(name, url, extension="skip")  # type: ignore[assignment]
        )
        try:
            for entry in group:
                try:
                    dropped = dropper(entry) if dropper is not None else _drop(backend, entry)  # type: ignore[arg-type]
                except ValueError as exc:  # a name the harness never creates: nothing to drop
                    entry.path.unlink(missing_ok=True)
                    result.kept.append((entry, f"not dropped, entry removed: {exc}"))
                    continue
                except Exception as exc:  # noqa: BLE001 - say which entry failed; the rest still go
                    result.failed.append((entry, one_line(exc)))
                    continue
                if dropped:
                    entry.path.unlink(missing_ok=True)
                    result.removed.append(entry)
                else:
                    result.kept.append((entry, "still used by other objects on the server"))
        finally:
            if backend is not None:
                backend.close()
    return result


def _drop(backend: _Cleanable, entry: Entry) -> bool:
    if entry.kind == NAMESPACE:
        backend.drop_namespace(entry.name)
        return True
    return backend.drop_extension(int(entry.details["oid"]))
