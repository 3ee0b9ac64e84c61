"""A memory system as an HTTP service, for the tests: PrecisionMemBench's wrapper contract
(`POST /add`, `POST /search`, `DELETE /reset`) and, with `extended`, the harness-memory/1
extension (docs/system-protocol.md). Stdlib only, bound to 127.0.0.1 on a free port.

Its retrieval is deliberately simple and its own: records rank by how many distinct query words
they contain (ties by id), within the user (and, extended, the query's scopes)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


@dataclass
class Store:
    extended: bool = False
    capabilities: tuple[str, ...] = ("scopes", "replace")
    modes: tuple[str, ...] = ("bm25",)
    mangle: bool = False
    """Answer ids that were never added (a wrapper that loses the beliefId)."""
    records: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """user id -> record id -> {text, scopes}."""
    calls: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, body: dict[str, Any]) -> dict[str, Any]:
        record_id = body["metadata"]["beliefId"]
        scopes = body.get("scopes") if self.extended else None
        self.records.setdefault(body["user_id"], {})[record_id] = {"text": body["text"], "scopes": scopes}
        return {"ok": True}

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        query = _words(body["query"])
        wanted = set(body.get("scopes") or ()) if self.extended else set()
        scored = []
        for record_id, record in self.records.get(body["user_id"], {}).items():
            if wanted and record["scopes"] is not None and wanted.isdisjoint(record["scopes"]):
                continue
            overlap = len(query & _words(record["text"]))
            if overlap:
                scored.append((-overlap, record_id, record["text"]))
        scored.sort()
        suffix = "-mangled" if self.mangle else ""
        results = [
            {"id": i + suffix, "memory": text, "score": float(-s)} for s, i, text in scored[: int(body["limit"])]
        ]
        return {"results": results}

    def drop_namespace(self, namespace: str) -> dict[str, Any]:
        for user in [u for u in self.records if u.startswith(f"{namespace}/")]:
            del self.records[user]
        return {"ok": True}


def _handler(store: Store) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
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

        def do_GET(self) -> None:
            with store.lock:
                store.calls.append(("GET", self.path))
                if self.path == "/capabilities" and store.extended:
                    declared = {"protocol": "harness-memory/1", "name": "test-server", "version": "1.0"}
                    self._answer(200, declared | {"capabilities": list(store.capabilities), "modes": list(store.modes)})
                else:
                    self._answer(404, {"error": "not found"})

        def do_POST(self) -> None:
            with store.lock:
                store.calls.append(("POST", self.path))
                body = self._body()
                if self.path == "/add":
                    self._answer(200, store.add(body))
                elif self.path == "/search":
                    self._answer(200, store.search(body))
                else:
                    self._answer(404, {"error": "not found"})

        def do_DELETE(self) -> None:
            with store.lock:
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
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(store))
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
