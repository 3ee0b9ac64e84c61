"""Popoto (`popoto` on the package index) as a system under test, through its own public API.

Records are Popoto models with the fields Popoto's own external benchmark harness declares
(`tests/benchmarks/scenarios/external_base.py` in its repository): a `BM25Field` over the text, a
`DecayingSortedField` relevance and a `ConfidenceField`, partitioned by `agent_id` (the harness's
user); as there, bm25 has a model of its own without an `EmbeddingField` (with one, Popoto's
lexical path ranks what BM25 does not match by vectors) and hybrid one with it, so a run with
vectors stores each record in both. Retrieval is
`ContextAssembler.assemble(query_cues={"topic": query}, agent_id=user)` with that harness's
`score_weights={"relevance": 1.0}` and the query's limit as `max_items` (that harness asks for 20): `retrieval_mode="lexical"` for bm25 (BM25
plus Popoto's graph propagation) and `"hybrid"` for hybrid (BM25 + cosine by Popoto's weighted,
query-adaptive RRF). Popoto has no vector mode through the assembler (its harness's vector mode
bypasses it as a diagnostic), so none is offered. Vectors come from the harness's encoder
through Popoto's `AbstractEmbeddingProvider`; Popoto keeps them in `.npy` files under
`$POPOTO_CONTENT_PATH` (unless the user set it, the run's folder for Popoto, `own_files`, never
`~/.popoto/content`), one folder per model class.

Popoto holds one process-wide Redis/Valkey client (`popoto.redis_db`: a `BlockingConnectionPool`
of `POPOTO_SYNC_MAX_CONNECTIONS`, 128 by default, shared by every thread, as its async API's
`to_thread` saves share it), so opening a system points it at this opening's server unless it is
there already: the systems open at once (`--concurrency`) are all on the run's one server. Each
model class is a namespace's own (its keys, its vector folder, its embedding cache entry). Its Postgres backend needs
PostgreSQL 18 or newer; Debian (trixie) packages 17, the harness's image, so Postgres is not offered.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
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
from harness.tokens import count

NAME = "popoto"

SCORE_WEIGHTS = {"relevance": 1.0}
"""Popoto's harness's weights (used by its composite scoring; hybrid ignores them)."""

_ASSEMBLER_MODES = {Mode.BM25: "lexical", Mode.HYBRID: "hybrid"}

_SCAN_BATCH = 500

MAX_CONCURRENCY = 32
"""Namespaces open at once: each worker holds one of Popoto's pooled connections and, for hybrid,
its model's invalidation listener another (Popoto's pool: 128, where a worker past it would wait)."""

_USERS = Users()
"""The Popoto systems open in this process: Popoto's client and the run's folder for its files are
process-wide, so the last to close removes the folder."""


def _require() -> Any:
    """Popoto's package, or a one-line error naming the extra."""
    try:
        import popoto
    except ImportError as exc:  # the extra is optional
        raise HarnessError(
            "system popoto needs the popoto extra: pip install 'memory-retrieval-harness[popoto]'"
        ) from exc
    return popoto


def _provider(embedder: TextEmbedder) -> Any:
    """The harness's encoder as a Popoto embedding provider (documents and queries alike)."""
    from popoto.embeddings import AbstractEmbeddingProvider

    class HarnessEncoderProvider(AbstractEmbeddingProvider):
        def embed(self, texts: list[str], input_type: str | None = None) -> list[list[float]]:  # noqa: ARG002 - a symmetric encoder
            return [[float(x) for x in row] for row in embedder.embed(texts)]

        @property
        def dimensions(self) -> int:
            return embedder.dimensions

        @property
        def max_batch_size(self) -> int:
            return 512

    return HarnessEncoderProvider()


def _model_class(class_name: str, embedder: TextEmbedder | None) -> Any:
    """A fresh Popoto model for one namespace: every key it writes carries `class_name`."""
    popoto = _require()
    from popoto.fields.bm25_field import BM25Field
    from popoto.fields.confidence_field import ConfidenceField
    from popoto.fields.decaying_sorted_field import DecayingSortedField
    from popoto.fields.embedding_field import EmbeddingField

    fields: dict[str, Any] = {
        "__module__": __name__,
        "key": popoto.AutoKeyField(),
        "agent_id": popoto.KeyField(),
        "record_id": popoto.StringField(default=""),
        "content": popoto.StringField(default=""),
        "importance": popoto.FloatField(default=0.5),
        "relevance": DecayingSortedField(decay_rate=0.5, base_score_field="importance", partition_by="agent_id"),
        "certainty": ConfidenceField(initial_confidence=0.5),
        "content_index": BM25Field(source="content"),
    }
    if embedder is not None:
        fields["embedding"] = EmbeddingField(source="content", provider=_provider(embedder))
    return type(class_name, (popoto.Model,), fields)


def connect(url: str) -> None:
    """Point Popoto's process-wide client at `url` (its documented `set_REDIS_DB_settings`), unless
    it is on that server already: the other systems open on it keep their client and its pool."""
    import redis
    from popoto.redis_db import get_REDIS_DB, set_REDIS_DB_settings

    kwargs = dict(redis.connection.parse_url(url))
    current = get_REDIS_DB().connection_pool.connection_kwargs
    if all(current.get(key) == value for key, value in kwargs.items()):
        return
    set_REDIS_DB_settings(**kwargs)


def class_names(namespace: str) -> dict[Mode, str]:
    """The model class of each mode on `namespace`: every key and vector folder carries its name."""
    return {Mode.BM25: f"Harness{namespace}Lexical", Mode.HYBRID: f"Harness{namespace}Hybrid"}


def namespace_keys(class_name: str, client: Any = None) -> list[str]:
    """Every key Popoto wrote for the model `class_name`: `<class>:*` and `$<kind>:<class>[:...]`
    (through `client`, else Popoto's own connection)."""
    if client is None:
        from popoto.redis_db import get_REDIS_DB

        client = get_REDIS_DB()
    found: list[str] = []
    for pattern in (f"{class_name}:*", f"$*:{class_name}", f"$*:{class_name}:*"):
        for key in client.scan_iter(match=pattern, count=_SCAN_BATCH):
            found.append(key.decode() if isinstance(key, bytes) else str(key))
    return found


@dataclass
class PopotoSystem:
    """Popoto on one namespace of one Redis or Valkey server."""

    namespace: str
    embedder: TextEmbedder | None
    opening: Opening
    _models: dict[Mode, Any] = field(default_factory=dict)
    _info: SystemInfo | None = None
    _assemblers: dict[tuple[Mode, int, int | None], Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._models[Mode.BM25] = _model_class(self.class_names[Mode.BM25], None)
        if self.embedder is not None:
            self._models[Mode.HYBRID] = _model_class(self.class_names[Mode.HYBRID], self.embedder)
        modes = tuple(self._models)
        self._info = SystemInfo(
            name=NAME,
            version=str(_require().__version__),
            capabilities=frozenset({Capability.USERS, Capability.BUDGET}),
            modes=modes,
            notes=(
                "ContextAssembler.assemble as Popoto's LongMemEval harness calls it: one record per text, "
                "max_items = the query's limit, lexical for bm25, hybrid (weighted query-adaptive RRF) for hybrid",
                "budgets count cl100k_base tokens of each record as Popoto serialises it (its token_counter hook)",
                "no scopes, supersession, pinned records, time or consolidation are mapped",
            ),
            max_concurrency=MAX_CONCURRENCY,
        )

    @property
    def class_names(self) -> dict[Mode, str]:
        return class_names(self.namespace)

    @property
    def info(self) -> SystemInfo:
        assert self._info is not None  # set in __post_init__
        return self._info

    def reset(self) -> None:
        from popoto.fields.embedding_field import _get_embeddings_dir, invalidate_cache
        from popoto.redis_db import get_REDIS_DB

        client = get_REDIS_DB()
        for name in self.class_names.values():
            keys = namespace_keys(name)
            for start in range(0, len(keys), _SCAN_BATCH):
                client.delete(*keys[start : start + _SCAN_BATCH])
            shutil.rmtree(os.path.join(_get_embeddings_dir(), name), ignore_errors=True)
            invalidate_cache(name)
        self._assemblers.clear()

    def add(self, records: Sequence[Record]) -> None:
        if self.embedder is not None:
            # Popoto embeds one text per save; embedded here in one call first, the texts are
            # computed by the harness's workers and stored as one cache shard, and each save reads them
            self.embedder.embed([r.text for r in records])
        for model in self._models.values():
            for record in records:
                instance = model(agent_id=record.user, record_id=record.id, content=record.text, importance=0.5)
                if instance.save() is False:
                    raise HarnessError(f"popoto did not save record {record.id!r}")

    def search(self, query: Query, mode: Mode) -> list[Found]:
        if mode not in self._models:
            raise ValueError(f"popoto offers no {mode} retrieval here")
        result = self._assembler(mode, query.limit, query.budget_tokens).assemble(
            query_cues={"topic": query.text}, agent_id=query.user
        )
        return [Found(id=r.record_id, text=r.content) for r in result.records[: query.limit]]

    def _assembler(self, mode: Mode, limit: int, budget: int | None) -> Any:
        """One assembler per mode, limit and budget. cl100k_base counts are passed only with a
        budget, which is all they decide: without one Popoto still counts every selected record
        (for its metadata), and Popoto's harness passes no counter, so Popoto's own estimate serves."""
        from popoto.recipes.context_assembler import ContextAssembler

        key = (mode, limit, budget)
        if key not in self._assemblers:
            self._assemblers[key] = ContextAssembler(
                model_class=self._models[mode],
                score_weights=SCORE_WEIGHTS,
                max_items=limit,
                retrieval_mode=_ASSEMBLER_MODES[mode],
                **({} if budget is None else {"max_tokens": budget, "token_counter": count}),
            )
        return self._assemblers[key]

    def advance(self, now: datetime) -> None:  # noqa: ARG002 - not declared
        raise Unsupported(NAME, Capability.CLOCK)

    def consolidate(self) -> None:
        raise Unsupported(NAME, Capability.CONSOLIDATION)

    def record_access(self, ids: Sequence[str]) -> None:  # noqa: ARG002 - not declared
        raise Unsupported(NAME, Capability.ACCESS)

    def close(self) -> None:
        """Its keys and vector folder removed; Popoto's invalidation listeners stopped (its only
        public stop is process-wide: the other namespaces' listeners start again on their next load,
        which checks the vectors on disk meanwhile), and the run's folder once no other is open."""
        from popoto.fields.embedding_field import stop_invalidation_listeners

        self.reset()
        stop_invalidation_listeners()
        self.opening.forget(self.opening.namespace)
        _USERS.leave(lambda: remove_own(os.environ.get(_CONTENT_ENV, "")))


_CONTENT_ENV = "POPOTO_CONTENT_PATH"
"""Popoto's own folder (its `.embeddings` and content files), read on each use; unset, it is
`~/.popoto/content`. The harness gives it the run's folder for Popoto instead (`own_files`),
removed when a system closes (Popoto makes it again if another opens), and leaves a user's own
setting alone."""


def open_popoto(opening: Opening) -> MemorySystem:
    """Popoto on the opening's Redis or Valkey server, its model class named for the namespace."""
    _require()
    if opening.url is None:
        raise HarnessError(f"system popoto needs a redis or valkey server, not {opening.backend_name}")
    if _CONTENT_ENV not in os.environ:
        os.environ[_CONTENT_ENV] = str(own_folder(NAME))
    from popoto.fields.embedding_field import _get_embeddings_dir

    connect(opening.url)
    opening.record(opening.namespace, embeddings=os.path.abspath(_get_embeddings_dir()))
    system = PopotoSystem(opening.namespace, opening.embedder, opening)
    _USERS.enter()
    return system


def drop_leftovers(url: str, entry: Entry) -> bool:
    """`harness down --url`: a killed run's keys on the server at `url` and its vector folders
    under the `$POPOTO_CONTENT_PATH` its entry recorded; nothing of any other class or folder.
    Needs only redis-py, so it works where the popoto extra is not installed."""
    import redis

    names = class_names(checked_namespace(entry.name)).values()
    client = redis.Redis.from_url(url)
    try:
        for name in names:
            keys = namespace_keys(name, client)
            for start in range(0, len(keys), _SCAN_BATCH):
                client.delete(*keys[start : start + _SCAN_BATCH])
    finally:
        client.close()
    folder = entry.details.get("embeddings")
    if isinstance(folder, str) and os.path.isabs(folder):
        for name in names:
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
    return True


SPEC = SystemSpec(
    name=NAME,
    open=open_popoto,
    summary="Popoto's ContextAssembler (BM25, hybrid RRF) on Redis or Valkey (extra: popoto)",
    backends=frozenset({"redis", "redis-core", "valkey"}),
    drop=drop_leftovers,
)
