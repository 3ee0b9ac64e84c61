"""`--system http:URL`: a memory system in any language, as an HTTP+JSON service (docs/system-protocol.md).

The bare contract is PrecisionMemBench's wrapper contract (`POST /add`, `POST /search`, `DELETE
/reset`), so its wrappers run unchanged. A service that answers `GET /capabilities` with
`{"protocol": "harness-memory/1", ...}` declares the extension: scopes and time on records and
queries, a mode and a token budget on search, `POST /advance`, `POST /consolidate`, `POST /access`,
and `DELETE /namespaces/{namespace}`, which removes only this run's records; `harness-memory/1.1`
adds `batch_add` (records per `POST /add`), so adds go in batches rather than one per request.

Every user id the harness sends is `<namespace>/<user>`, so a run reads only its own records. The
bare `DELETE /reset` clears every user's records: the harness never calls it, so on a bare
wrapper what a run added stays (under its namespace's user ids), and its report says so.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlsplit

from harness.errors import BackendUnavailable, HarnessError
from harness.pipeline.settings import Mode
from harness.systems.protocol import (
    Capability,
    Found,
    Opening,
    Query,
    Record,
    SystemInfo,
    SystemSpec,
    Unsupported,
)

PREFIX = "http:"
PROTOCOL = "harness-memory/1"
"""The extension's version a service declares in `GET /capabilities`."""
PROTOCOLS = (PROTOCOL, "harness-memory/1.1")
"""The versions the harness speaks: 1.1 is 1 plus `batch_add` (a `POST /add` of many records)."""
TIMEOUT_S = 30.0
BARE_NOTE = "a bare wrapper: records stay in it after the run (its DELETE /reset would clear every user's)"


class HttpSystemError(RuntimeError):
    """The service answered with an error status or with something that is not the protocol."""


def _url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HarnessError(f"--system http:URL: {url!r} is not an http:// or https:// URL")
    return url.rstrip("/")


class HttpService:
    """JSON over HTTP to one service (stdlib only: nothing to install)."""

    def __init__(self, url: str, timeout: float = TIMEOUT_S):
        self.url = _url(url)
        self.timeout = timeout

    def call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            raise HttpSystemError(f"{method} {path}: HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise BackendUnavailable(f"system {self.url}: {method} {path}: {reason}") from None
        try:
            return json.loads(text) if text.strip() else {}
        except ValueError:
            raise HttpSystemError(f"{method} {path}: the answer is not JSON") from None

    def declared(self) -> Mapping[str, Any] | None:
        """The extension's declaration, or None for a bare wrapper (no `GET /capabilities`)."""
        try:
            answer = self.call("GET", "/capabilities")
        except HttpSystemError:
            return None
        if not isinstance(answer, dict) or answer.get("protocol") not in PROTOCOLS:
            return None
        return answer


def system_info(url: str, declared: Mapping[str, Any] | None) -> SystemInfo:
    """What the service declares; a bare wrapper isolates users (the contract's `user_id`) and
    has one retrieval, reported as `hybrid` (the system's own, whatever it combines)."""
    if declared is None:
        return SystemInfo(f"{PREFIX}{url}", "unknown", frozenset({Capability.USERS}), (Mode.HYBRID,), (BARE_NOTE,))
    try:
        capabilities = frozenset(Capability(c) for c in declared.get("capabilities", ())) | {Capability.USERS}
        modes = tuple(Mode(m) for m in declared.get("modes", [Mode.HYBRID.value]))
    except ValueError as exc:
        raise HarnessError(f"system {url}: GET /capabilities: {exc}") from None
    return SystemInfo(f"{PREFIX}{url}", str(declared.get("version", "unknown")), capabilities, modes)


def batch_size(url: str, declared: Mapping[str, Any] | None) -> int:
    """Records per `POST /add`: a `harness-memory/1.1` service's `batch_add`; one for a bare
    wrapper (the contract's one record per request) and for a `harness-memory/1` service."""
    if declared is None or declared.get("protocol") != PROTOCOLS[1]:
        return 1
    size = declared.get("batch_add", 1)
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise HarnessError(f"system {url}: GET /capabilities: batch_add must be a whole number >= 1, not {size!r}")
    return size


class HttpSystem:
    """One namespace on an HTTP memory service."""

    def __init__(self, url: str, opening: Opening):
        self._service = HttpService(url)
        self._namespace = opening.namespace
        declared = self._service.declared()
        self._scoped = declared is not None
        self._batch = batch_size(self._service.url, declared)
        self._info = system_info(self._service.url, declared)
        self._opening = opening
        self._recorded = False

    @property
    def info(self) -> SystemInfo:
        return self._info

    def _user(self, user: str) -> str:
        return f"{self._namespace}/{user}"

    def _has(self, capability: Capability) -> bool:
        return capability in self._info.capabilities

    def reset(self) -> None:
        if self._scoped:
            self._service.call("DELETE", f"/namespaces/{quote(self._namespace, safe='')}")

    def add(self, records: Sequence[Record]) -> None:
        if self._scoped and not self._recorded:
            self._opening.record(self._namespace)  # before anything exists under it (a bare wrapper cannot drop it)
            self._recorded = True
        bodies = [self._body(record) for record in records]
        for start in range(0, len(bodies), self._batch):
            chunk = bodies[start : start + self._batch]
            ids = ", ".join(repr(b["metadata"]["beliefId"]) for b in chunk[:3]) + (", ..." if len(chunk) > 3 else "")
            request = chunk[0] if self._batch == 1 else {"namespace": self._namespace, "records": chunk}
            answer = self._service.call("POST", "/add", request)
            if not isinstance(answer, dict) or answer.get("ok") is False:
                raise HttpSystemError(f"POST /add {ids}: the service did not accept it")

    def _body(self, record: Record) -> dict[str, Any]:
        """One record as `POST /add` carries it (alone, or as one of a batch's `records`)."""
        metadata: dict[str, Any] = {"beliefId": record.id}
        body: dict[str, Any] = {"text": record.text, "user_id": self._user(record.user), "metadata": metadata}
        if self._scoped:
            body["namespace"] = self._namespace
            body["attributes"] = dict(record.attributes)
            if self._has(Capability.SCOPES):
                body["scopes"] = list(record.scopes)
            if self._has(Capability.TIMESTAMPS) and record.time is not None:
                body["timestamp"] = record.time.isoformat()
        return body

    def search(self, query: Query, mode: Mode) -> list[Found]:
        body: dict[str, Any] = {"query": query.text, "user_id": self._user(query.user), "limit": query.limit}
        if self._scoped:
            body["namespace"] = self._namespace
            body["mode"] = mode.value
            if self._has(Capability.SCOPES):
                body["scopes"] = list(query.scopes)
            if self._has(Capability.BUDGET) and query.budget_tokens is not None:
                body["budget_tokens"] = query.budget_tokens
            if self._has(Capability.TIMESTAMPS) and query.time is not None:
                body["timestamp"] = query.time.isoformat()
        answer = self._service.call("POST", "/search", body)
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list):
            raise HttpSystemError("POST /search: no `results` list in the answer")
        found: list[Found] = []
        for item in results[: query.limit]:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise HttpSystemError("POST /search: a result without a string `id` (the beliefId added)")
            score = item.get("score")
            memory = item.get("memory")
            found.append(
                Found(
                    item["id"],
                    float(score) if isinstance(score, int | float) else None,
                    memory if isinstance(memory, str) else None,
                )
            )
        return found

    def _extension(self, capability: Capability, path: str, body: dict[str, Any]) -> None:
        if not self._has(capability):
            raise Unsupported(self._info.name, capability)
        self._service.call("POST", path, {"namespace": self._namespace, **body})

    def advance(self, now: datetime) -> None:
        self._extension(Capability.CLOCK, "/advance", {"now": now.isoformat()})

    def consolidate(self) -> None:
        self._extension(Capability.CONSOLIDATION, "/consolidate", {})

    def record_access(self, ids: Sequence[str]) -> None:
        self._extension(Capability.ACCESS, "/access", {"ids": list(ids)})

    def close(self) -> None:
        if self._scoped:
            self.reset()
            if self._recorded:
                self._opening.forget(self._namespace)


def spec(url: str) -> SystemSpec:
    """The system `http:URL` names (checked now: a bad URL is a one-line error before anything runs)."""
    checked = _url(url)
    return SystemSpec(
        f"{PREFIX}{checked}",
        lambda opening: HttpSystem(checked, opening),
        f"the HTTP memory service at {checked}",
        encoder=False,
    )


def drop_namespace(url: str, namespace: str) -> bool:
    """`harness down --url`: remove a killed run's namespace, where the service declares the
    extension (a bare wrapper cannot remove one namespace: False)."""
    service = HttpService(url)
    if service.declared() is None:
        return False
    service.call("DELETE", f"/namespaces/{quote(namespace, safe='')}")
    return True
