"""mem0 (`mem0ai` on the package index) as a system under test, through its own public API.

`Memory.from_config` with the pgvector store in a table named for the namespace; records are
stored with `add(..., infer=False)` (the text as given, no LLM), one call per record with the
harness's id in `metadata`; retrieval is `search(query, top_k=limit, filters={"user_id": user})`
with mem0's defaults (threshold 0.1; its semantic score plus BM25 keyword scores where the store
has `keyword_search`, as pgvector does, plus entity boosts when spaCy is installed). That is its
only retrieval, offered as hybrid. The embedder is the harness's encoder; mem0 is configured with
placeholder OpenAI clients that are never called (`infer=False`) and point at a closed local port,
and its telemetry is switched off before mem0 is imported (`MEM0_TELEMETRY=False`), as its
folder is the run's (`MEM0_DIR`, unless the user set it; `own_files`), never `~/.mem0`.

mem0's Redis and Valkey stores need the Redis Query Engine or valkey-search (`FT.CREATE`);
the harness's `redis` backend has it, but mem0's Redis store is not wired here: Postgres only.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from harness.backends.ledger import Entry
from harness.errors import HarnessError
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.systems.own_files import Users, own_folder, remove_own
from harness.systems.protocol import (
    Capability,
    Found,
    MemorySystem,
    Opening,
    Query,
    Record,
    SystemInfo,
    SystemSpec,
    Unsupported,
    checked_namespace,
)

NAME = "mem0"

_NOWHERE = "http://127.0.0.1:9/v1"
"""Where mem0's placeholder OpenAI clients would send a request: the discard port, refused locally."""

_HISTORY_PREFIX = "harness-mem0-"
_HISTORY_SUFFIXES = ("", "-wal", "-shm", "-journal")
"""mem0's local history database (SQLite) of a run: a temporary file and SQLite's companions."""

ID_KEY = "harness_id"
"""The metadata key carrying the harness's record id through mem0."""

MAX_CONCURRENCY = 16
"""Namespaces open at once (`--concurrency`): each is a `Memory` of its own, with its own history
database (a lock of its own) and its own pgvector pool of up to 5 connections (mem0's default),
so 16 hold at most 80 of PostgreSQL's default 100 connections."""

_USERS = Users()
"""The mem0 systems open in this process: their history files share the run's folder for mem0,
which the last to close removes."""


_DIR_ENV = "MEM0_DIR"
"""mem0's own folder (its config.json with an anonymous user id): read once, when mem0 is imported;
unset, it is `~/.mem0`. The harness gives it the run's folder for mem0 instead (`own_files`),
removed when a system closes (mem0 makes it again if another opens), and leaves a user's own
setting alone."""


def _require() -> Any:
    """mem0's `Memory`, imported with telemetry off and its folder out of the user's home, or a
    one-line error naming the extra."""
    os.environ["MEM0_TELEMETRY"] = "False"
    if _DIR_ENV not in os.environ:
        os.environ[_DIR_ENV] = str(own_folder(NAME))
    try:
        import mem0
        from mem0.memory import telemetry
    except ImportError as exc:  # the extra is optional
        raise HarnessError("system mem0 needs the mem0 extra: pip install 'memory-retrieval-harness[mem0]'") from exc
    if telemetry.MEM0_TELEMETRY:
        raise HarnessError("mem0 was imported with telemetry on before the harness could switch it off")
    return mem0


def _embedding(embedder: TextEmbedder) -> Any:
    """The harness's encoder as a mem0 embedder (its `EmbeddingBase`)."""
    from mem0.embeddings.base import EmbeddingBase

    class HarnessEncoderEmbedding(EmbeddingBase):
        def embed(self, text: str, memory_action: str | None = None) -> list[float]:  # noqa: ARG002 - symmetric
            return [float(x) for x in embedder.embed([text])[0]]

        def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:  # noqa: ARG002
            return [[float(x) for x in row] for row in embedder.embed(texts)]

    return HarnessEncoderEmbedding()


def config(url: str, collection: str, dimensions: int, history: str) -> dict[str, Any]:
    """mem0's configuration: pgvector at `url`, table `collection`; no reachable LLM or embedding service."""
    placeholder = {"api_key": "unused", "openai_base_url": _NOWHERE}
    return {
        "vector_store": {
            "provider": "pgvector",
            "config": {"connection_string": url, "collection_name": collection, "embedding_model_dims": dimensions},
        },
        "embedder": {"provider": "openai", "config": {**placeholder, "embedding_dims": dimensions}},
        "llm": {"provider": "openai", "config": placeholder},
        "history_db_path": history,
    }


@dataclass
class Mem0System:
    """mem0 on one pgvector table."""

    memory: Any
    opening: Opening
    history: str

    @property
    def info(self) -> SystemInfo:
        mem0 = _require()
        return SystemInfo(
            name=NAME,
            version=str(getattr(mem0, "__version__", "unknown")),
            capabilities=frozenset({Capability.USERS}),
            modes=(Mode.HYBRID,),
            notes=(
                "add(infer=False) per record, search(top_k=limit, filters={user_id}) with mem0's defaults (threshold 0.1)",
                "its one retrieval (semantic + BM25 keyword scores on pgvector) is reported as hybrid",
                "no scopes, supersession, pinned records, budgets, time or consolidation are mapped",
            ),
            max_concurrency=MAX_CONCURRENCY,
        )

    def reset(self) -> None:
        """mem0's own `reset`: its table is dropped and made again, its history emptied."""
        self.memory.reset()

    def add(self, records: Sequence[Record]) -> None:
        for record in records:
            self.memory.add(
                [{"role": "user", "content": record.text}],
                user_id=record.user,
                metadata={ID_KEY: record.id},
                infer=False,
            )

    def search(self, query: Query, mode: Mode) -> list[Found]:
        if mode is not Mode.HYBRID:
            raise ValueError(f"mem0 offers no {mode} retrieval")
        found = self.memory.search(query.text, top_k=query.limit, filters={"user_id": query.user})
        return [
            Found(id=str(hit["metadata"][ID_KEY]), score=hit.get("score"), text=hit.get("memory"))
            for hit in found["results"]
        ]

    def advance(self, now: datetime) -> None:  # noqa: ARG002 - not declared
        raise Unsupported(NAME, Capability.CLOCK)

    def consolidate(self) -> None:
        raise Unsupported(NAME, Capability.CONSOLIDATION)

    def record_access(self, ids: Sequence[str]) -> None:  # noqa: ARG002 - not declared
        raise Unsupported(NAME, Capability.ACCESS)

    def close(self) -> None:
        """Drop the table, the history file and the run's mem0 folder, close mem0's connection pool."""
        self.memory.vector_store.delete_col()
        self.memory.db.close()
        pool = getattr(self.memory.vector_store, "connection_pool", None)
        if pool is not None:
            pool.close()
        for suffix in _HISTORY_SUFFIXES:
            if os.path.exists(self.history + suffix):
                os.unlink(self.history + suffix)
        self.opening.forget(self.opening.namespace)
        # the run's mem0 folder (MEM0_DIR too, unless the user set it), once no other system uses it
        _USERS.leave(lambda: remove_own(os.path.dirname(self.history)))


def table(namespace: str) -> str:
    """mem0's pgvector table of a namespace (in the database's default schema)."""
    return f"mem0_{namespace}"


def drop_leftovers(url: str, entry: Entry) -> bool:
    """`harness down --url`: a killed run's table on the server at `url` (its indexes go with it)
    and the local history file its entry recorded; no other table. Needs only psycopg, so it works
    where the mem0 extra is not installed."""
    import psycopg
    from psycopg import sql

    name = table(checked_namespace(entry.name))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(name)))
    history = entry.details.get("history")
    if isinstance(history, str) and os.path.basename(history).startswith(_HISTORY_PREFIX):
        for suffix in _HISTORY_SUFFIXES:
            if os.path.exists(history + suffix):
                os.unlink(history + suffix)
    return True


def open_mem0(opening: Opening) -> MemorySystem:
    """mem0 on the opening's PostgreSQL server (pgvector), in table `mem0_<namespace>`."""
    mem0 = _require()
    if opening.backend_name != "postgres" or opening.url is None:
        raise HarnessError(f"system mem0 runs on postgres (pgvector) here, not {opening.backend_name}")
    if opening.embedder is None:
        raise HarnessError("system mem0 needs the harness's encoder: run a vector mode (hybrid)")
    _USERS.enter()  # before its history file: a closing system removes the folder only once none is open
    try:
        fd, history = tempfile.mkstemp(prefix=_HISTORY_PREFIX, suffix=".db", dir=own_folder(NAME))
        os.close(fd)
        opening.record(opening.namespace, history=history)
        memory = mem0.Memory.from_config(
            config(opening.url, table(opening.namespace), opening.embedder.dimensions, history)
        )
    except BaseException:
        _USERS.leave(lambda: None)
        raise
    memory.embedding_model = _embedding(opening.embedder)
    return Mem0System(memory, opening, history)


SPEC = SystemSpec(
    name=NAME,
    open=open_mem0,
    summary="mem0's search over add(infer=False) memories on PostgreSQL + pgvector (extra: mem0)",
    backends=frozenset({"postgres"}),
    drop=drop_leftovers,
)
