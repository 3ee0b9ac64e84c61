"""A small memory system behind the harness's HTTP protocol (docs/system-protocol.md): the example a
memory system's own repository starts from (docs/ci-action.md walks through it).

It stores records per user in memory and ranks them by BM25 over their words; it speaks the bare
contract (`POST /add`, `POST /search`, `DELETE /reset`) and declares the `harness-memory/1`
extension, with what it really does: `scopes` (a search returns only records sharing one of its
scopes, or scoped `user:universal`), `replace` (an add of a stored id replaces it), `supersession` (a record marked superseded
is never returned) and `pinned` (a pinned record is returned for every search of its user and
scope, first, in `pinned_rank` order), in one mode, `bm25`. It declares no clock, consolidation, access or budget, so the
harness reports lifecycle scenarios and conversations *not applicable* to it, saying so.

Standard library only; `python memory_service.py --port 8080` serves on 127.0.0.1 until killed.
`--max-results N` caps every search at N results (a knob whose cost the harness shows).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

UNIVERSAL = "user:universal"
"""A record of this scope is in every scope (the user's profile, universal preferences)."""
K1, B = 1.2, 0.75
"""BM25's term-frequency saturation and length normalisation, at their usual values."""
RELATIVE = 0.5
"""A record scoring under this share of the best score is left out: precision over recall."""
STOPWORDS = frozenset(
    "a an and are as at be by did do does for from had has have how i in is it its me my of on or our "
    "should that the their them they this to was we were what when where which who why will with you your".split()
)


def terms(text: str) -> list[str]:
    """Lower-case words and numbers, without stop words."""
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]


@dataclass
class Record:
    text: str
    terms: Counter[str]
    scopes: frozenset[str]
    attributes: dict[str, Any]

    @property
    def superseded(self) -> bool:
        """Superseded, or an open question resolved: kept, never returned."""
        attributes = self.attributes
        return (
            bool(attributes.get("superseded_by") or attributes.get("resolved_at"))
            or attributes.get("status") == "superseded"
        )


@dataclass
class Memory:
    """Every user's records (user id -> record id -> record); one lock, as requests come on threads."""

    max_results: int | None = None
    users: dict[str, dict[str, Record]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, body: dict[str, Any]) -> None:
        record = Record(
            body["text"],
            Counter(terms(body["text"])),
            frozenset(body.get("scopes") or ()),
            body.get("attributes") or {},
        )
        self.users.setdefault(body["user_id"], {})[body["metadata"]["beliefId"]] = record

    def search(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        wanted = frozenset(body.get("scopes") or ())
        records = {
            rid: r
            for rid, r in self.users.get(body["user_id"], {}).items()
            if not r.superseded and (not wanted or not r.scopes or r.scopes & wanted or UNIVERSAL in r.scopes)
        }
        scores = bm25(terms(body["query"]), records)
        pinned = sorted(
            (rid for rid, r in records.items() if r.attributes.get("pinned")),
            key=lambda rid: records[rid].attributes.get("pinned_rank", 1),
        )
        best = max(scores.values(), default=0.0)
        relevant = [rid for rid in scores if rid not in pinned and scores[rid] >= RELATIVE * best]
        ranked = pinned + sorted(relevant, key=lambda rid: (-scores[rid], rid))
        limit = min(int(body["limit"]), self.max_results or int(body["limit"]))
        return [{"id": rid, "memory": records[rid].text, "score": scores.get(rid, 0.0)} for rid in ranked[:limit]]

    def drop(self, namespace: str) -> None:
        for user in [u for u in self.users if u.startswith(f"{namespace}/")]:
            del self.users[user]


def bm25(query: list[str], records: dict[str, Record]) -> dict[str, float]:
    """Each record's BM25 score for the query, over these records as the collection; zero scores left out."""
    if not records:
        return {}
    average = sum(sum(r.terms.values()) for r in records.values()) / len(records)
    scores: dict[str, float] = {}
    for term in set(query):
        holding = [rid for rid, r in records.items() if term in r.terms]
        idf = math.log(1 + (len(records) - len(holding) + 0.5) / (len(holding) + 0.5))
        for rid in holding:
            tf, length = records[rid].terms[term], sum(records[rid].terms.values())
            scores[rid] = scores.get(rid, 0.0) + idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
    return scores


CAPABILITIES = {
    "protocol": "harness-memory/1",
    "name": "example-memory-service",
    "version": "1.0",
    "capabilities": ["scopes", "replace", "supersession", "pinned"],
    "modes": ["bm25"],
}


def handler(memory: Memory) -> type[BaseHTTPRequestHandler]:
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
            return json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")

        def do_GET(self) -> None:
            if self.path == "/capabilities":
                self._answer(200, CAPABILITIES)
            else:
                self._answer(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = self._body()
            with memory.lock:
                if self.path == "/add":
                    memory.add(body)
                    self._answer(200, {"ok": True})
                elif self.path == "/search":
                    self._answer(200, {"results": memory.search(body)})
                else:
                    self._answer(404, {"error": "not found"})

        def do_DELETE(self) -> None:
            with memory.lock:
                if self.path == "/reset":
                    memory.users.clear()
                    self._answer(200, {"ok": True})
                elif self.path.startswith("/namespaces/"):
                    memory.drop(unquote(self.path.removeprefix("/namespaces/")))
                    self._answer(200, {"ok": True})
                else:
                    self._answer(404, {"error": "not found"})

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--max-results", type=int, default=None, help="cap every search at N results")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(Memory(args.max_results)))
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)  # the address, for a caller that chose port 0
    server.serve_forever()


if __name__ == "__main__":
    main()
