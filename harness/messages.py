"""Exceptions and URLs made fit for a one-line, printable error message."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit


def one_line(exc: BaseException) -> str:
    """First line of an exception's message (its type name when it has none), for one-line errors."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def error_text(exc: BaseException) -> str:
    """`Type: message` on one line (whitespace runs collapsed): how a case or question records its
    error; a lone surrogate in it (a system's text quoted) escaped, as no report file can hold one."""
    message = " ".join(str(exc).split()).encode("utf-8", "backslashreplace").decode("utf-8")
    return f"{type(exc).__name__}: {message}"


_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters but tab and line break (a terminal acts on them: `\\x1b[` starts an escape
sequence), the bidirectional marks and overrides (they reorder what is shown), and lone surrogates
(no stream can encode one)."""


def printable(text: str) -> str:
    """`text` with every control character but tab and line break, and every lone surrogate, shown
    as its escape (`\\x1b`, `\\ud800`): what a terminal or a CI log is given of text from others."""
    return _UNPRINTABLE.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)


SECRET_KEYS = frozenset({"password", "sslpassword", "passfile", "sslkey"})
"""libpq connection parameters (and URL query parameters) whose values are never printed."""


def is_conninfo(url: str) -> bool:
    """A libpq `key=value` connection string rather than a URL."""
    return "://" not in url and "=" in url


def redacted(url: str) -> str:
    """`url` with every secret masked: the password of a URL (and secret query parameters), or the
    secret values of a libpq `key=value` string. Never raises: it is used in error messages."""
    if is_conninfo(url):
        return _SECRET_PAIR.sub(lambda m: f"{m[1]}{m[2]}***", url)
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # a URL that does not parse (a bad port or IPv6 host) may still hold a password
        return _URL_PASSWORD.sub(r"\1***@", _SECRET_PAIR.sub(lambda m: f"{m[1]}{m[2]}***", url))
    query = _SECRET_PAIR.sub(lambda m: f"{m[1]}{m[2]}***", parts.query)
    netloc = parts.netloc
    if password is not None:
        netloc = f"{parts.username or ''}:***@{netloc.rsplit('@', 1)[1]}"
    if (netloc, query) == (parts.netloc, parts.query):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_SECRET_PAIR = re.compile(
    rf"(\b(?:{'|'.join(sorted(SECRET_KEYS))}))(\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)", re.IGNORECASE
)
_URL_PASSWORD = re.compile(r"^([^:/?#]+://[^:/@]*:)[^@]*@")
_ANY_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)[^@\s]*@", re.IGNORECASE)


def masked(text: str) -> str:
    """Any text (a driver's error message) with the secrets of URLs and connection strings in it masked."""
    return _ANY_URL_PASSWORD.sub(r"\1***@", _SECRET_PAIR.sub(lambda m: f"{m[1]}{m[2]}***", text))
