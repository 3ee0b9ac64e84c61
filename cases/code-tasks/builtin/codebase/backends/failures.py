"""Telling a lost server connection from a failed request, across the client libraries.

A lost connection (closed, reset, refused) means every later request fails too: the run reports
the backend as lost (exit 3) instead of a bad case. Only libraries already imported are checked:
an exception cannot come from a client that was never loaded.
"""

from __future__ import annotations

import sys

_PG_CONNECTION_STATES = ("08", "57P01", "57P02", "57P03")
"""SQLSTATE connection exceptions, and the server shutting down (admin, crash, cannot connect now)."""


def _one_lost(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionError):  # refused, reset, aborted, broken pipe
        return True
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(exc, psycopg.OperationalError):
        if isinstance(exc, psycopg.errors.PipelineAborted):  # follows some earlier error, maybe a bad query
            return False
        # client-side errors ("the connection is closed", "consuming input failed") carry no SQLSTATE
        return exc.sqlstate is None or exc.sqlstate.startswith(_PG_CONNECTION_STATES)
    redis = sys.modules.get("redis.exceptions")
    if redis is not None and isinstance(exc, redis.ConnectionError):
        return True
    pymongo = sys.modules.get("pymongo.errors")
    return pymongo is not None and isinstance(exc, pymongo.ConnectionFailure)


def connection_lost(exc: BaseException) -> bool:
    """Whether `exc`, or an exception it was raised from, says the server connection is gone."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if _one_lost(current):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
