"""Exceptions and URLs made fit for a one-line, printable error message."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def one_line(exc: BaseException) -> str:
    """First line of an exception's message (its type name when it has none), for one-line errors."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def error_text(exc: BaseException) -> str:
    """`Type: message` on one line (whitespace runs collapsed): how a case or question records its error."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def redacted(url: str) -> str:
    """`url` with its password masked: connection strings carry passwords, messages must not."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))
