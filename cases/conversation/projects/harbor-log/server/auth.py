"""Harbormaster authentication: a bearer token signed with the marina's secret (HMAC-SHA256).

Skippers need no account to book; only cancellations and arrival confirmations are protected.
"""

import hashlib
import hmac
import os


class Forbidden(Exception):
    """The request lacks a valid harbormaster token."""


def sign(name: str) -> str:
    """A token for harbormaster `name`: the name and its HMAC, joined by a dot."""
    secret = os.environ["HARBOR_SECRET"].encode()
    mac = hmac.new(secret, name.encode(), hashlib.sha256).hexdigest()
    return f"{name}.{mac}"


def require_harbormaster(header: str) -> str:
    """The harbormaster's name from an `Authorization: Bearer <token>` header, or Forbidden."""
    token = header.removeprefix("Bearer ").strip()
    name, _, mac = token.rpartition(".")
    if not name or not hmac.compare_digest(sign(name), token):
        raise Forbidden("harbormaster token required")
    return name
