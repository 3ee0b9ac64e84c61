"""Exceptions and URLs made fit for a one-line, printable error message."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def one_line(exc: BaseException) -> str:
    """First line of an exception's message (its type name when it has none), for one-line errors."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def redacted(url: str) -> str:
    """`url` with its password masked: connection strings carry passwords, messages must not."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))
