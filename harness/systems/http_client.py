"""JSON over HTTP to a service the harness did not write, bounded in time, size and failures.

A service may hang, answer one byte at a time, answer gigabytes, redirect, or die mid-run: each
request has a deadline from connect to its last byte (not per socket read), an answer larger than
the cap is refused unread, a 3xx is an error naming where it pointed (never followed: a `POST`
would arrive elsewhere as a bodiless `GET`), and after `max_failures` requests in a row without an
answer the service counts as lost (`ServiceLost`, a `ConnectionError`, so a run reports it as a
lost backend: exit 3) and every later request fails at once. Credentials in the URL are sent as
HTTP basic auth and never shown: `ServiceUrl.shown` is the URL with its password masked.
Standard library only: `http.client` over a socket the client connects itself, so the TCP connect
and the TLS handshake are within the deadline too (no redirect or proxy handling to switch off).
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import math
import os
import socket
import ssl
import threading
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn
from urllib.parse import unquote, urlsplit

from harness.errors import HarnessError
from harness.messages import one_line, redacted

DEADLINE_ENV = "HARNESS_HTTP_DEADLINE_S"
MAX_BYTES_ENV = "HARNESS_HTTP_MAX_BYTES"
MAX_FAILURES_ENV = "HARNESS_HTTP_MAX_FAILURES"
_CHUNK = 64 * 1024


class HttpSystemError(HarnessError):
    """The service answered with an error status or with something that is not the protocol: an
    error of the case that asked; exit 3 where it ends a run (its probe, its teardown)."""

    exit_code = 3


class ServiceLost(HttpSystemError, ConnectionError):
    """`max_failures` requests in a row got no answer: the run reports the system as lost (exit 3)."""


@dataclass(frozen=True)
class Limits:
    """What one request may cost, and how many may fail in a row (docs/system-protocol.md)."""

    deadline_s: float = 30.0
    max_bytes: int = 16 * 1024 * 1024
    max_failures: int = 3

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Limits:
        """The defaults, each replaced by its environment variable where set (checked: exit 2)."""
        default = cls()
        deadline = _number(environ, DEADLINE_ENV, float, default.deadline_s)
        if not (math.isfinite(deadline) and deadline > 0):
            raise HarnessError(f"{DEADLINE_ENV}={environ[DEADLINE_ENV]!r}: expected seconds > 0")
        return cls(
            deadline,
            _whole(environ, MAX_BYTES_ENV, default.max_bytes),
            _whole(environ, MAX_FAILURES_ENV, default.max_failures),
        )


def _number(environ: Mapping[str, str], name: str, kind: type[float] | type[int], default: float) -> float:
    text = environ.get(name)
    if text is None or not text.strip():
        return default
    try:
        return kind(text)
    except ValueError:
        raise HarnessError(f"{name}={text!r}: not a number") from None


def _whole(environ: Mapping[str, str], name: str, default: int) -> int:
    value = int(_number(environ, name, int, default))
    if value < 1:
        raise HarnessError(f"{name}={environ[name]!r}: expected a whole number >= 1")
    return value


@dataclass(frozen=True)
class ServiceUrl:
    """A service's base URL, split once: where to connect, the credentials to send, what to show."""

    https: bool
    host: str
    port: int | None
    path: str
    """The base path, without its trailing slash; each request's path is appended to it."""
    authorization: str | None = field(repr=False)
    """`Basic ...` of the URL's user and password, or None without them (never in a repr)."""
    shown: str
    """The URL as every message, report and file name shows it: its password masked."""

    @classmethod
    def parse(cls, text: str) -> ServiceUrl:
        """`text` checked: a one-line error (exit 2, the password masked) for what cannot be a base URL."""
        shown = redacted(text).rstrip("/")

        def refuse(why: str) -> HarnessError:
            return HarnessError(f"--system http:{shown!r}: {why}")

        if any(c.isspace() or not c.isprintable() for c in text):
            raise refuse("a URL has no spaces or control characters (percent-encode them: %20)")
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as exc:  # a bad port or IPv6 host
            raise refuse(str(exc)) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise refuse("not an http:// or https:// URL")
        try:
            host = parts.hostname.encode("idna").decode("ascii")  # what a connection and its Host header take
        except UnicodeError:
            raise refuse(f"{parts.hostname!r} is not a host name") from None
        if parts.query or parts.fragment or text.endswith(("?", "#")):
            raise refuse("a base URL has no ?query or #fragment (each request's path is appended to it)")
        authorization = None
        if parts.username is not None or parts.password is not None:
            pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
            authorization = f"Basic {base64.b64encode(pair.encode('utf-8')).decode('ascii')}"
        return cls(parts.scheme == "https", host, port, parts.path.rstrip("/"), authorization, shown)


class _DeadlineReader(io.RawIOBase):
    """A socket's reads, each given only the time left before the request's deadline."""

    def __init__(self, sock: socket.socket, deadline: float):
        super().__init__()
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(_left(self._deadline))
        return self._sock.recv_into(buffer)


class _DeadlineSocket:
    """What `http.client` uses of a connected socket, every operation bounded by one deadline."""

    def __init__(self, sock: socket.socket, deadline: float):
        self._sock = sock
        self._deadline = deadline

    def sendall(self, data: bytes) -> None:
        self._sock.settimeout(_left(self._deadline))  # sendall's timeout bounds the whole send
        self._sock.sendall(data)

    def makefile(self, mode: str) -> io.BufferedReader:
        assert mode == "rb", mode
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))

    def close(self) -> None:
        """Nothing: `http.client` closes its connection before the body is read (`Connection:
        close`); the request closes the socket once the answer is read."""


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    return left


class _NoAnswer(Exception):
    """The request got no whole answer: it counts towards losing the service."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    location: str | None = None
    """A redirect's `Location` (its password masked)."""

    def json(self) -> Any:
        """The body as JSON (an empty body: `{}`); a body that is not JSON raises ValueError."""
        if not self.body.strip():
            return {}
        try:
            return json.loads(self.body)
        except RecursionError:
            raise ValueError("nested too deeply") from None


class HttpClient:
    """Requests to one service; it counts failures in a row across every namespace of a run
    (and every worker of `--concurrency`: the count is shared, so the threshold is as serial)."""

    def __init__(self, url: ServiceUrl, limits: Limits):
        self.url = url
        self.limits = limits
        self._failures = 0
        self._counting = threading.Lock()
        self._lost: str | None = None
        self._tls = ssl.create_default_context() if url.https else None

    def _where(self, method: str, path: str) -> str:
        return f"system http:{self.url.shown}: {method} {path}"

    def exchange(
        self, method: str, path: str, body: Mapping[str, Any] | None = None, *, answers: Collection[int] = ()
    ) -> Answer:
        """One request and its whole answer, whatever its status but a redirect or a server error
        (both errors); counted as a failure where no answer came or the server erred. `answers`:
        statuses of 500 or more that are an answer to this request, not the server's error (501 to
        `GET /capabilities`: a service with no such route)."""
        if self._lost is not None:
            raise ServiceLost(self._lost)
        try:
            answer = self._exchange(method, path, body)
        except _NoAnswer as exc:
            self._failed(f"{self._where(method, path)}: {exc}")
        if answer.status >= 500 and answer.status not in answers:
            self._failed(f"{self._where(method, path)}: HTTP {answer.status}{_excerpt(answer.body)}")
        with self._counting:
            self._failures = 0
        if 300 <= answer.status < 400:
            raise HttpSystemError(
                f"{self._where(method, path)}: HTTP {answer.status} redirects to {answer.location!r}, "
                "which the harness does not follow (give --system http: the URL that serves the protocol)"
            )
        return answer

    def call(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """The JSON answer of a 2xx; any other status or a body that is not JSON is an error."""
        answer = self.exchange(method, path, body)
        if not 200 <= answer.status < 300:
            raise HttpSystemError(f"{self._where(method, path)}: HTTP {answer.status}{_excerpt(answer.body)}")
        try:
            return answer.json()
        except ValueError as exc:
            raise HttpSystemError(f"{self._where(method, path)}: the answer is not JSON ({exc})") from None

    def _failed(self, why: str) -> NoReturn:
        with self._counting:
            self._failures += 1
            if self._failures >= self.limits.max_failures:
                self._lost = self._lost or (
                    f"{why}; {self._failures} requests in a row failed, so the service counts as lost "
                    f"(limit: {MAX_FAILURES_ENV}={self.limits.max_failures})"
                )
        if self._lost is not None:
            raise ServiceLost(self._lost)
        raise HttpSystemError(why)

    def _exchange(self, method: str, path: str, body: Mapping[str, Any] | None) -> Answer:
        deadline = time.monotonic() + self.limits.deadline_s
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json", "Connection": "close"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.url.authorization is not None:
            headers["Authorization"] = self.url.authorization
        port = self.url.port or (443 if self.url.https else 80)
        connection = http.client.HTTPConnection(self.url.host, port)  # its socket is connected here
        sock: socket.socket | None = None
        try:
            sock = socket.create_connection((self.url.host, port), timeout=_left(deadline))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a large body goes in two sends
            if self._tls is not None:
                sock.settimeout(_left(deadline))  # the whole handshake, in one call
                sock = self._tls.wrap_socket(sock, server_hostname=self.url.host)
            connection.sock = _DeadlineSocket(sock, deadline)  # what http.client uses of it
            connection.request(method, f"{self.url.path}{path}", body=data, headers=headers)
            response = connection.getresponse()
            if 300 <= response.status < 400:
                return Answer(response.status, b"", redacted(response.getheader("Location") or "nowhere"))
            return Answer(response.status, self._body(response))
        except (OSError, http.client.HTTPException) as exc:
            if time.monotonic() >= deadline:
                raise _NoAnswer(f"no whole answer within {self.limits.deadline_s:g} s (limit: {DEADLINE_ENV})") from exc
            raise _NoAnswer(_transport(exc)) from exc
        finally:
            connection.close()
            if sock is not None:
                sock.close()

    def _body(self, response: http.client.HTTPResponse) -> bytes:
        cap = self.limits.max_bytes
        too_large = f"an answer over {cap} bytes (limit: {MAX_BYTES_ENV}), not read"
        declared = response.getheader("Content-Length")
        if declared is not None and declared.strip().isdigit() and int(declared) > cap:
            raise _NoAnswer(f"{too_large}: it declares {int(declared)}")
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read(_CHUNK):
            size += len(chunk)
            if size > cap:
                raise _NoAnswer(too_large)
            chunks.append(chunk)
        return b"".join(chunks)


def _transport(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "cannot connect: connection refused"
    if isinstance(exc, http.client.RemoteDisconnected | http.client.IncompleteRead):
        return f"the connection closed before a whole answer ({type(exc).__name__})"
    return f"no answer: {one_line(exc) or type(exc).__name__}"


def _excerpt(body: bytes) -> str:
    """The start of an error answer's body, as the service's own explanation."""
    text = " ".join(body[:200].decode("utf-8", "replace").split())
    return f": {text[:120]!r}" if text else ""


def limits_from_environment() -> Limits:
    """The limits this process runs under (`HARNESS_HTTP_*`)."""
    return Limits.from_environment(os.environ)
