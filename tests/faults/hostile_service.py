"""A memory service that misbehaves on purpose: the test memory server (tests/systems/memory_server.py,
extended) with chosen requests answered by a fault instead: it hangs, drips, floods, redirects,
lies, fails or dies. Bound to 127.0.0.1 on a free port. Stopping it releases every fault that
waits and joins every request's thread, so nothing it started is left running."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.systems.memory_server import Store, handler

Fault = Callable[["Hostile", BaseHTTPRequestHandler], None]
"""Answers one request (or leaves it unanswered) in place of the store."""

HANG_S = 20.0
"""The longest a fault holds a request before giving up on its own (stopping releases it at once)."""


@dataclass
class Hostile:
    store: Store = field(default_factory=lambda: Store(extended=True))
    faults: dict[tuple[str, str], Fault] = field(default_factory=dict)
    """(method, path pattern) -> its fault; the pattern as `fnmatch` reads it (`/*`: every path)."""
    authorization: str | None = None
    """An `Authorization` header every request must carry (else 401)."""
    seen: list[tuple[str, str, str | None]] = field(default_factory=list)
    """Every request: method, path and its `Authorization` header."""
    released: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None

    def fault(self, method: str, path: str) -> Fault | None:
        return next((f for (m, p), f in self.faults.items() if m == method and fnmatchcase(path, p)), None)


def hang(hostile: Hostile, _request: BaseHTTPRequestHandler) -> None:
    """Never answers (until stopped, or HANG_S): the connection is then closed unanswered."""
    hostile.released.wait(HANG_S)


def drip(body: bytes, every: float) -> Fault:
    """A whole, valid answer, one byte every `every` seconds."""

    def fault(hostile: Hostile, request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        try:
            for byte in body:
                request.wfile.flush()
                if hostile.released.wait(every):
                    return
                request.wfile.write(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):  # the client gave up on it
            pass

    return fault


def flood(size: int, declared: bool) -> Fault:
    """A valid answer (no results) padded to `size` bytes; with its length declared or not."""

    def fault(_hostile: Hostile, request: BaseHTTPRequestHandler) -> None:
        head, tail = b'{"results": []', b"}"
        request.send_response(200)
        request.send_header("Content-Type", "application/json")
        if declared:
            request.send_header("Content-Length", str(size))
        request.send_header("Connection", "close")
        request.end_headers()
        chunk = b" " * 65536
        try:
            request.wfile.write(head)
            for _ in range((size - len(head) - len(tail)) // len(chunk)):
                request.wfile.write(chunk)
            request.wfile.write(b" " * ((size - len(head) - len(tail)) % len(chunk)) + tail)
        except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
            pass

    return fault


def answer(status: int, body: str, **headers: str) -> Fault:
    """A fixed answer: `status`, `body` as JSON (or not), and any headers."""

    def fault(_hostile: Hostile, request: BaseHTTPRequestHandler) -> None:
        data = body.encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(data)

    return fault


def in_turn(*faults: Fault) -> Fault:
    """Each fault in turn, one request each, round and round."""
    served: list[Fault] = []

    def fault(hostile: Hostile, request: BaseHTTPRequestHandler) -> None:
        served.append(faults[len(served) % len(faults)])
        served[-1](hostile, request)

    return fault


def die(hostile: Hostile, _request: BaseHTTPRequestHandler) -> None:
    """The service stops listening (later connections are refused); this request goes unanswered."""
    assert hostile.server is not None
    hostile.server.shutdown()
    hostile.server.socket.close()


def _handler(hostile: Hostile) -> type[BaseHTTPRequestHandler]:
    base = handler(hostile.store)

    class Handler(base):  # type: ignore[valid-type,misc]
        def _faulted(self) -> bool:
            auth = self.headers.get("Authorization")
            hostile.seen.append((self.command, self.path, auth))
            if hostile.authorization is not None and auth != hostile.authorization:
                answer(401, '{"error": "unauthorized"}')(hostile, self)
                return True
            fault = hostile.fault(self.command, self.path)
            if fault is None:
                return False
            fault(hostile, self)
            self.close_connection = True
            return True

        def do_GET(self) -> None:
            if not self._faulted():
                super().do_GET()

        def do_POST(self) -> None:
            if not self._faulted():
                super().do_POST()

        def do_DELETE(self) -> None:
            if not self._faulted():
                super().do_DELETE()

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True  # server_close joins every request's thread


@contextmanager
def serving(hostile: Hostile) -> Iterator[str]:
    """The hostile service on 127.0.0.1; yields its base URL. On exit every request it holds is
    released and its thread joined."""
    server = _Server(("127.0.0.1", 0), _handler(hostile))
    hostile.server = server
    # polled often: a service that dies stops within 0.05 s, well before a test's deadline
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        hostile.released.set()
        server.shutdown()
        server.server_close()
        thread.join()
