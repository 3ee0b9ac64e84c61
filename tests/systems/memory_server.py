"""A memory system as an HTTP service, for the tests: PrecisionMemBench's wrapper contract
(`POST /add`, `POST /search`, `DELETE /reset`) and, with `extended`, the harness-memory/1
extension (docs/system-protocol.md). Stdlib only, bound to 127.0.0.1 on a free port.

Its retrieval is deliberately simple and its own: records rank by how many distinct query words
they contain (ties: with `timestamps`, the most recently used first; then by id), within the
user (and, extended, the query's scopes).

The extension's lifecycle operations, with the semantics the tests rely on (each only where the
store declares its capability, and none where `ignore` names its path):
- `timestamps`: a record keeps its `timestamp`; its last use is that time until it is accessed;
- `clock`: `POST /advance` moves the namespace's clock forward to `now` (never back);
- `access`: `POST /access` makes the namespace's clock each named record's last use;
- `consolidation`: `POST /consolidate` removes each record of the namespace last used more than
  `expire_minutes` before its clock (nothing without a clock), and each one its attributes mark
  superseded (`superseded_by`, or `status` `superseded`);
- `budget`: a search returns, best first, the results whose texts, joined by blank lines, fit in
  `budget_tokens` cl100k_base tokens (one that does not fit is passed over).
With `batch` > 1 it declares `harness-memory/1.1` and `batch_add`, and takes `POST /add` with a
`records` list of up to that many records (`adds` counts the requests). With `delay`, each request
waits a random time up to that many seconds before it is served, outside the store's lock, so
requests in flight together are answered in any order; `most_in_flight` is how many were at once.
With `gather`, the first requests wait, up to GATHER_S, until that many are in flight together:
a test that asserts N at once then does not hang on the machine's speed (slow clients may never
overlap within `delay`), and one whose client never sends N at once still sees fewer."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from harness import tokens

_WORD = re.compile(r"[a-z0-9]+")


GATHER_S = 10.0
"""How long the first requests wait for `gather` in flight; then no request waits for it again."""
EXTENSION = {"/advance": "clock", "/access": "access", "/consolidate": "consolidation"}
"""The extension's lifecycle paths, each served where the store declares its capability."""


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@dataclass
class Store:
    extended: bool = False
    capabilities: tuple[str, ...] = ("scopes", "replace")
    modes: tuple[str, ...] = ("bm25",)
    mangle: bool = False
    """Answer ids that were never added (a wrapper that loses the beliefId)."""
    ignore: tuple[str, ...] = ()
    """Extension paths answered 200 and otherwise ignored (`/advance`: a system without a clock that
    says it has one), and `budget_tokens` (one that declares a budget and returns everything)."""
    version: str = "1.0"
    """What `GET /capabilities` declares as the service's version."""
    expire_minutes: float = 480.0
    batch: int = 1
    max_concurrency: int | None = None
    """What `GET /capabilities` declares as the most requests it takes at once (None: nothing)."""
    records: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """user id -> record id -> {text, scopes} (extended: also its attributes and last use)."""
    clocks: dict[str, datetime] = field(default_factory=dict)
    """namespace -> its simulated time."""
    adds: int = 0
    """`POST /add` requests answered."""
    added: int = 0
    """Records those requests carried."""
    calls: list[tuple[str, str]] = field(default_factory=list)
    searches: list[dict[str, Any]] = field(default_factory=list)
    """Every `POST /search` body."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    delay: float = 0.0
    gather: int = 0
    gathering: threading.Condition = field(default_factory=threading.Condition)
    in_flight: int = 0
    most_in_flight: int = 0

    @contextmanager
    def request(self) -> Iterator[None]:
        """One request in flight: counted, and held a random time up to `delay` before it is served."""
        with self.lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.gather:
                with self.gathering:
                    self.gathering.notify_all()
                    if not self.gathering.wait_for(lambda: self.most_in_flight >= self.gather, GATHER_S):
                        self.gather = 0
                        self.gathering.notify_all()
            if self.delay:
                time.sleep(random.uniform(0, self.delay))
            yield
        finally:
            with self.lock:
                self.in_flight -= 1

    def declared(self) -> dict[str, Any]:
        protocol = {"protocol": "harness-memory/1.1", "batch_add": self.batch} if self.batch > 1 else {}
        most = {} if self.max_concurrency is None else {"max_concurrency": self.max_concurrency}
        return (
            {"protocol": "harness-memory/1", "name": "test-server", "version": self.version}
            | protocol
            | most
            | {
                "capabilities": list(self.capabilities),
                "modes": list(self.modes),
            }
        )

    def has(self, capability: str) -> bool:
        return self.extended and capability in self.capabilities

    def add(self, body: dict[str, Any]) -> dict[str, Any]:
        self.adds += 1
        if "records" in body and self.batch > 1:
            if len(body["records"]) > self.batch:
                raise ValueError(f"{len(body['records'])} records in one POST /add, over batch_add {self.batch}")
            for record in body["records"]:
                self._add_one(record)
        else:
            self._add_one(body)
        return {"ok": True}

    def _add_one(self, body: dict[str, Any]) -> None:
        self.added += 1
        record_id = body["metadata"]["beliefId"]
        scopes = body.get("scopes") if self.extended else None
        stored: dict[str, Any] = {"text": body["text"], "scopes": scopes}
        if self.extended:
            stored["attributes"] = body.get("attributes") or {}
        if self.has("timestamps") and body.get("timestamp"):
            stored["used"] = datetime.fromisoformat(body["timestamp"])
        self.records.setdefault(body["user_id"], {})[record_id] = stored

    def _namespace(self, namespace: str) -> Iterator[tuple[str, dict[str, Any]]]:
        for user, records in self.records.items():
            if user.startswith(f"{namespace}/"):
                yield from records.items()

    def advance(self, body: dict[str, Any]) -> dict[str, Any]:
        now = datetime.fromisoformat(body["now"])
        before = self.clocks.get(body["namespace"])
        self.clocks[body["namespace"]] = now if before is None else max(before, now)
        return {"ok": True}

    def access(self, body: dict[str, Any]) -> dict[str, Any]:
        now = self.clocks.get(body["namespace"])
        wanted = set(body["ids"])
        for record_id, record in self._namespace(body["namespace"]):
            if record_id in wanted and now is not None:
                record["used"] = now
        return {"ok": True}

    def consolidate(self, body: dict[str, Any]) -> dict[str, Any]:
        now = self.clocks.get(body["namespace"])
        horizon = None if now is None else now - timedelta(minutes=self.expire_minutes)
        for user, records in self.records.items():
            if not user.startswith(f"{body['namespace']}/"):
                continue
            for record_id in list(records):
                record = records[record_id]
                attributes = record.get("attributes") or {}
                expired = horizon is not None and record.get("used") is not None and record["used"] < horizon
                superseded = bool(attributes.get("superseded_by")) or attributes.get("status") == "superseded"
                if expired or superseded:
                    del records[record_id]
        return {"ok": True}

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        self.searches.append(body)
        query = _words(body["query"])
        wanted = set(body.get("scopes") or ()) if self.extended else set()
        scored = []
        for record_id, record in self.records.get(body["user_id"], {}).items():
            if wanted and record["scopes"] is not None and wanted.isdisjoint(record["scopes"]):
                continue
            overlap = len(query & _words(record["text"]))
            if overlap:
                used = record.get("used") if self.has("timestamps") else None
                recency = -used.timestamp() if used is not None else 0.0
                scored.append((-overlap, recency, record_id, record["text"]))
        scored.sort()
        suffix = "-mangled" if self.mangle else ""
        budget = body.get("budget_tokens") if self.has("budget") and "budget_tokens" not in self.ignore else None
        results: list[dict[str, Any]] = []
        for s, _, i, text in scored[: int(body["limit"])]:
            if budget is not None and tokens.count("\n\n".join([*(r["memory"] for r in results), text])) > budget:
                continue
            results.append({"id": i + suffix, "memory": text, "score": float(-s)})
        return {"results": results}

    def drop_namespace(self, namespace: str) -> dict[str, Any]:
        for user in [u for u in self.records if u.startswith(f"{namespace}/")]:
            del self.records[user]
        return {"ok": True}


class JsonHandler(BaseHTTPRequestHandler):
    """JSON in and out, and no access log: what every test service here shares."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")


def handler(store: Store) -> type[BaseHTTPRequestHandler]:
    """The store's request handler (tests/faults/hostile_service.py answers some requests otherwise)."""

    class Handler(JsonHandler):
        # a request leaves `in_flight` before its answer is sent: buffered, the answer goes out when the handler returns
        wbufsize = -1 if store.delay else 0

        def do_GET(self) -> None:
            with store.request(), store.lock:
                store.calls.append(("GET", self.path))
                if self.path == "/capabilities" and store.extended:
                    self._answer(200, store.declared())
                else:
                    self._answer(404, {"error": "not found"})

        def do_POST(self) -> None:
            with store.request(), store.lock:
                store.calls.append(("POST", self.path))
                body = self._body()
                if self.path == "/add":
                    self._answer(200, store.add(body))
                elif self.path == "/search":
                    self._answer(200, store.search(body))
                elif self.path in store.ignore:
                    self._answer(200, {"ok": True})
                elif store.extended and self.path in EXTENSION and store.has(EXTENSION[self.path]):
                    self._answer(200, getattr(store, self.path.removeprefix("/"))(body))
                else:
                    self._answer(404, {"error": "not found"})

        def do_DELETE(self) -> None:
            with store.request(), store.lock:
                store.calls.append(("DELETE", self.path))
                if self.path == "/reset":
                    store.records.clear()
                    self._answer(200, {"ok": True})
                elif self.path.startswith("/namespaces/") and store.extended:
                    self._answer(200, store.drop_namespace(unquote(self.path.removeprefix("/namespaces/"))))
                else:
                    self._answer(404, {"error": "not found"})

    return Handler


@contextmanager
def serving(store: Store) -> Iterator[str]:
    """The store served on 127.0.0.1; yields its base URL."""
    with served(handler(store)) as url:
        yield url


@contextmanager
def served(handler_class: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A handler served on 127.0.0.1 on a free port, in a thread; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


if __name__ == "__main__":  # `python -m tests.systems.memory_server [--extended]`: serve until killed
    import sys
    import time

    with serving(Store(extended="--extended" in sys.argv)) as url:
        print(url, flush=True)
        while True:
            time.sleep(3600)
