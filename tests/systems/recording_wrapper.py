"""A bare wrapper as PrecisionMemBench's leaderboard expects one (`POST /add`, `POST /search`,
`POST /wait`, `DELETE /reset`; no `GET /capabilities`), recording every request it is sent.

Its search is its own and deliberately plain: a user's records that share a word with the query,
in the order they were added, kept to the request's `scope` where one is given and the record's
metadata names one (a string, or the first of a list). Stdlib only, bound to 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.systems.memory_server import JsonHandler, served

_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Recorder:
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    """Every request: method, path and its JSON body (None without one)."""
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """user id -> the `/add` bodies it was sent, in order."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def sent(self, method: str = "", path: str = "") -> list[tuple[str, str, Any]]:
        """The requests of that method and path ("": any), the capability probe left out."""
        return [
            r
            for r in self.requests
            if r[:2] != ("GET", "/capabilities") and method in ("", r[0]) and path in ("", r[1])
        ]

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        words = set(_WORD.findall(body["query"].lower()))
        wanted = body.get("scope")
        scopes = {wanted} if isinstance(wanted, str) else set(wanted or ())
        results = []
        for record in self.records.get(body["user_id"], []):
            scope = record["metadata"].get("scope")
            first = scope[0] if isinstance(scope, list) and scope else scope
            if scopes and first is not None and first not in scopes:
                continue
            if words & set(_WORD.findall(record["text"].lower())):
                results.append({"id": record["metadata"]["beliefId"], "memory": record["text"]})
        return {"results": results[: int(body["limit"])]}


def _handler(recorder: Recorder) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            with recorder.lock:
                recorder.requests.append((method, self.path, body))
                if (method, self.path) == ("POST", "/add"):
                    recorder.records.setdefault(body["user_id"], []).append(body)
                    self._answer(200, {"ok": True})
                elif (method, self.path) == ("POST", "/search"):
                    self._answer(200, recorder.search(body))
                elif (method, self.path) in (("POST", "/wait"), ("DELETE", "/reset")):
                    self._answer(200, {"ok": True})
                else:
                    self._answer(404, {"error": "not found"})

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_DELETE(self) -> None:
            self._serve("DELETE")

    return Handler


@contextmanager
def recording(recorder: Recorder) -> Iterator[str]:
    """The wrapper served on 127.0.0.1; yields its base URL."""
    with served(_handler(recorder)) as url:
        yield url
