"""`--system http:URL`: a memory system in any language, as an HTTP+JSON service (docs/system-protocol.md).

The bare contract is PrecisionMemBench's wrapper contract (`POST /add`, `POST /search`, `POST
/wait`, `DELETE /reset`, with the scope, aliases and metadata its client sends), so its wrappers
run unchanged. A service that answers `GET /capabilities` with
`{"protocol": "harness-memory/1", ...}` declares the extension: scopes and time on records and
queries, a mode and a token budget on search, `POST /advance`, `POST /consolidate`, `POST /access`,
and `DELETE /namespaces/{namespace}`, which removes only this run's records; `harness-memory/1.1`
adds `batch_add` (records per `POST /add`), so adds go in batches rather than one per request.

Every user id the harness sends is `<namespace>/<user>`, so a run reads only its own records. The
bare `DELETE /reset` clears every user's records: the harness never calls it, so on a bare
wrapper what a run added stays (under its namespace's user ids), and its report says so.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from harness.errors import HarnessError
from harness.pipeline.settings import Mode
from harness.systems import stopping
from harness.systems.http_answers import Declaration, explained, found
from harness.systems.http_client import HttpClient, HttpSystemError, Limits, ServiceUrl, limits_from_environment
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
WAIT_ENV = "HARNESS_HTTP_WAIT_AFTER_SEED"
BARE_NOTE = "a bare wrapper: records stay in it after the run (its DELETE /reset would clear every user's)"


NO_ROUTE = frozenset({404, 405, 501})
"""How a service says it has no `GET /capabilities`: no such route, no such method for it, or no
GET at all (Python's `http.server` without `do_GET` answers 501)."""


def declared(client: HttpClient) -> Declaration | None:
    """The extension's declaration, or None for a bare wrapper: `GET /capabilities` answered with
    no such route (`NO_ROUTE`) or another 4xx (but 401 and 403, a refusal, are errors), or with
    anything but a JSON object that has `protocol`. A declaration that does not fit its schema is
    a one-line error (exit 2) before any work."""
    answer = client.exchange("GET", "/capabilities", answers=NO_ROUTE)  # a redirect or another 5xx is raised
    if answer.status in (401, 403):
        raise HttpSystemError(
            f"system {PREFIX}{client.url.shown}: GET /capabilities: HTTP {answer.status}: the service refuses "
            "the harness (credentials go in the URL: http://USER:PASSWORD@HOST, sent as basic auth)"
        )
    if not 200 <= answer.status < 300:
        return None
    try:
        body = answer.json()
    except ValueError:
        return None
    if not isinstance(body, dict) or "protocol" not in body:
        return None
    try:
        return Declaration.model_validate(body)
    except ValidationError as exc:
        raise HarnessError(
            f"system {PREFIX}{client.url.shown}: GET /capabilities does not fit the protocol "
            f"(docs/system-protocol.md): {explained(exc)}"
        ) from None


def system_info(shown: str, declaration: Declaration | None) -> SystemInfo:
    """What the service declares (its name and version are what reports show it as); a bare wrapper isolates users (the contract's `user_id`) and
    has one retrieval, reported as `hybrid` (the system's own, whatever it combines)."""
    name = f"{PREFIX}{shown}"
    if declaration is None:
        return SystemInfo(
            name, "unknown", frozenset({Capability.USERS}), (Mode.HYBRID,), (BARE_NOTE,), max_concurrency=None
        )
    capabilities = frozenset(declaration.capabilities) | {Capability.USERS}
    return SystemInfo(
        name,
        declaration.version,
        capabilities,
        declaration.modes,
        declared_name=declaration.name,
        max_concurrency=declaration.max_concurrency,
    )


class HttpSystem:
    """One namespace on an HTTP memory service."""

    def __init__(self, client: HttpClient, wait_after_seed: bool, opening: Opening):
        self._service = client
        self._wait_after_seed = wait_after_seed
        self._namespace = opening.namespace
        declaration = declared(client)
        self._scoped = declaration is not None
        self._batch = 1 if declaration is None else declaration.batch
        self._info = system_info(client.url.shown, declaration)
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
            if start:
                stopping.check()  # a worker of a stopped run ends its add at the next request
            chunk = bodies[start : start + self._batch]
            ids = ", ".join(repr(b["metadata"]["beliefId"]) for b in chunk[:3]) + (", ..." if len(chunk) > 3 else "")
            request = chunk[0] if self._batch == 1 else {"namespace": self._namespace, "records": chunk}
            answer = self._service.call("POST", "/add", request)
            if not isinstance(answer, dict) or answer.get("ok") is False:
                raise HttpSystemError(f"system {self._info.name}: POST /add {ids}: the service did not accept it")

    def _body(self, record: Record) -> dict[str, Any]:
        """One record as `POST /add` carries it (alone, or as one of a batch's `records`): the
        record's own metadata and aliases ride along as PrecisionMemBench's client sends them."""
        metadata: dict[str, Any] = {"beliefId": record.id, **record.metadata}
        body: dict[str, Any] = {"text": record.text, "user_id": self._user(record.user), "metadata": metadata}
        if record.aliases is not None:
            body["aliases"] = list(record.aliases)
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
        if not self._scoped and query.scopes:  # PrecisionMemBench's `scope`: one, or a list of several
            body["scope"] = query.scopes[0] if len(query.scopes) == 1 else list(query.scopes)
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
        try:
            return found(answer, query.limit)
        except ValueError as exc:
            raise HttpSystemError(f"system {self._info.name}: POST /search: {exc}") from None

    def settle(self) -> None:
        """`POST /wait` where the wrapper is declared to need one after seeding (PrecisionMemBench's
        `waitAfterSeed`, here `HARNESS_HTTP_WAIT_AFTER_SEED`); else nothing."""
        if self._wait_after_seed:
            self._service.call("POST", "/wait")

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


def wait_after_seed(environ: Mapping[str, str]) -> bool:
    """`HARNESS_HTTP_WAIT_AFTER_SEED`: 1 for a wrapper that needs `POST /wait` after seeding, 0 or
    unset for one that does not (anything else: a one-line error, exit 2)."""
    text = environ.get(WAIT_ENV, "").strip()
    if text not in ("", "0", "1"):
        raise HarnessError(f"{WAIT_ENV}={text!r}: expected 1 or 0")
    return text == "1"


def spec(url: str, limits: Limits | None = None, wait: bool | None = None) -> SystemSpec:
    """The system `http:URL` names (checked now: a bad URL is a one-line error before anything
    runs); `limits` and `wait` (after seeding) default to the environment's (`HARNESS_HTTP_*`).
    Every namespace the run opens shares one client, so failures in a row are counted across them."""
    client = HttpClient(ServiceUrl.parse(url), limits or limits_from_environment())
    waits = wait_after_seed(os.environ) if wait is None else wait
    shown = client.url.shown
    return SystemSpec(
        f"{PREFIX}{shown}",
        partial(HttpSystem, client, waits),
        f"the HTTP memory service at {shown}",
        encoder=False,
        declared=lambda: system_info(shown, declared(client)),
    )


def drop_namespace(url: str, namespace: str) -> bool:
    """`harness down --url`: remove a killed run's namespace, where the service declares the
    extension (a bare wrapper cannot remove one namespace: False)."""
    client = HttpClient(ServiceUrl.parse(url), limits_from_environment())
    if declared(client) is None:
        return False
    client.call("DELETE", f"/namespaces/{quote(namespace, safe='')}")
    return True
