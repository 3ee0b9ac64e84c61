"""redis-py clients that close their connections when a signal cuts a command short.

redis-py hands a connection back to its pool even when a BaseException (the CLI's `Interrupted`, a
KeyboardInterrupt) lands between sending a command and reading its reply. The pool's check at the
next checkout (`can_read`) misses a reply still on its way, so the next command read the previous
one's reply: the clean-up after Ctrl-C failed on a reply it could not parse, that error took the
interruption's place, and every later search of the run read its predecessor's answer. Imported
only where redis-py is installed (the redis extra). A client is shared by a run's worker threads:
redis-py's pool gives each command a connection of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from redis.client import Pipeline


class InterruptibleRedis(redis.Redis):
    """A client whose pool is emptied when a command ends by a BaseException that is no error."""

    def execute_command(self, *args: Any, **options: Any) -> Any:
        with _closed_on_interrupt(self.connection_pool):
            return super().execute_command(*args, **options)

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> InterruptiblePipeline:
        return InterruptiblePipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)


class InterruptiblePipeline(Pipeline):
    """A pipeline interrupted between its replies leaves the rest of them unread: the same remedy."""

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        with _closed_on_interrupt(self.connection_pool):
            return super().execute(raise_on_error)


@contextmanager
def _closed_on_interrupt(pool: redis.ConnectionPool) -> Iterator[None]:
    try:
        yield
    except Exception:
        raise  # redis-py closes a connection its errors leave unusable
    except BaseException:
        # the cut connection is back in the pool (redis-py releases it before this runs): the idle
        # ones are closed, and the next command connects afresh; those other worker threads are
        # using (`--concurrency`) are left to finish their commands
        pool.disconnect(inuse_connections=False)
        raise
