"""A memory service that takes a fixed time per request: what `harness bench --service-latency-ms`
runs a dataset through, so a run's wall time is mostly waiting, as on a real system.

It speaks the harness-memory/1 extension (docs/system-protocol.md) with `batch_add` where asked
(harness-memory/1.1), ranks a user's records by how many distinct query words they contain (ties
by id), and sleeps `latency_s` in every request before answering, on a thread per request, so
requests in flight together wait together. Standard library only, on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class _Store:
    def __init__(self, batch: int) -> None:
        self.batch = batch
        self.records: dict[str, dict[str, set[str]]] = {}
        self.lock = threading.Lock()
        self.requests = 0

    def declared(self) -> dict[str, Any]:
        version = {"protocol": "harness-memory/1.1", "batch_add": self.batch} if self.batch > 1 else {}
        return {"protocol": "harness-memory/1", "name": "latency-service", "version": "1", "modes": ["bm25"]} | version

    def add(self, body: dict[str, Any]) -> dict[str, Any]:
        for record in body.get("records") or [body]:
            words = _words(record["text"])
            with self.lock:
                self.records.setdefault(record["user_id"], {})[record["metadata"]["beliefId"]] = words
        return {"ok": True}

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        query = _words(body["query"])
        with self.lock:
            stored = list(self.records.get(body["user_id"], {}).items())
        scored = sorted((-len(query & words), record_id) for record_id, words in stored if query & words)
        return {"results": [{"id": i, "score": float(-s)} for s, i in scored[: int(body["limit"])]]}

    def drop(self, namespace: str) -> dict[str, Any]:
        with self.lock:
            for user in [u for u in self.records if u.startswith(f"{namespace}/")]:
                del self.records[user]
        return {"ok": True}


def _handler(store: _Store, latency_s: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(self, body: dict[str, Any], status: int = 200) -> None:
            with store.lock:
                store.requests += 1
            time.sleep(latency_s)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            return json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")

        def do_GET(self) -> None:
            self._answer(store.declared() if self.path == "/capabilities" else {"error": "not found"})

        def do_POST(self) -> None:
            if self.path == "/add":
                self._answer(store.add(self._body()))
            elif self.path == "/search":
                self._answer(store.search(self._body()))
            else:
                self._answer({"error": "not found"}, 404)

        def do_DELETE(self) -> None:
            if self.path.startswith("/namespaces/"):
                self._answer(store.drop(unquote(self.path.removeprefix("/namespaces/"))))
            else:
                self._answer({"error": "not found"}, 404)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the listen backlog: 16 workers' connections at once, with room


@dataclass
class Served:
    """The running service: its base URL, and the requests it has answered."""

    url: str
    _store: _Store

    @property
    def requests(self) -> int:
        with self._store.lock:
            return self._store.requests


@contextmanager
def latency_service(latency_s: float, batch: int = 1) -> Iterator[Served]:
    """The service on a free port of 127.0.0.1 for the block."""
    store = _Store(batch)
    server = _Server(("127.0.0.1", 0), _handler(store, latency_s))
    thread = threading.Thread(target=server.serve_forever, name="latency-service", daemon=True)
    thread.start()
    try:
        yield Served(f"http://127.0.0.1:{server.server_address[1]}", store)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
