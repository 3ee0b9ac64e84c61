"""MongoDB Atlas (Local) backend: Atlas Search for lexical BM25, Atlas Vector Search for cosine.

Runs against `mongodb/mongodb-atlas-local` (mongod + mongot). mongot indexes the collection
asynchronously from its change stream, so every write here waits until the search indexes show
it. Query shapes, index definitions and the scoring formula are in `atlas_queries`.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.backends.atlas_queries import (
    LEXICAL_SCORER,
    VECTOR_PATH,
    check_name,
    check_spec,
    count_pipeline,
    lexical_hit,
    lexical_pipeline,
    merge_batches,
    missing_documents,
    revision_pipeline,
    search_index_model,
    stored_document,
    term_batches,
    unready_indexes,
    vector_count_pipeline,
    vector_hit,
    vector_index_model,
    vector_pipeline,
    vector_revision_pipeline,
)
from harness.backends.base import BackendInfo, Filters, Hit, IndexDoc, IndexSpec, Value, ranked, stored_value
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, ContractNotes, UrlScheme, server_url
from harness.errors import BackendUnavailable
from harness.messages import redacted

if TYPE_CHECKING:
    from pymongo import MongoClient
    from pymongo.collection import Collection

DATABASE = "harness"
_POLL_SECONDS = 0.2
_QUERY_MS = 30_000
_TIE_MARGIN = 32
"""Extra results fetched so that ties at the limit are broken by id, not by engine order."""


def _index_name(kind: str) -> str:
    """Fresh per build: a rebuilt index must not collide with one mongot is still deleting."""
    return f"{kind}_{uuid.uuid4().hex[:8]}"


class AtlasIndex:
    def __init__(self, collection: Collection[dict[str, Any]], spec: IndexSpec, timeout: float):
        self._collection = collection
        self._spec = check_spec(spec)
        self._timeout = timeout
        self._lexical = _index_name("lexical")
        self._vector = _index_name("vector") if spec.dimensions else None
        self._create()

    @property
    def _names(self) -> list[str]:
        return [name for name in (self._lexical, self._vector) if name]

    def _create(self) -> None:
        """Indexes go on the empty collection and are waited for before any write, so every
        document reaches mongot once, by the change stream, never also by an initial sync scan."""
        from pymongo.errors import OperationFailure

        database, name = self._collection.database, self._collection.name
        database.drop_collection(name)
        database.create_collection(name)
        try:
            self._collection.create_search_index(search_index_model(self._lexical, self._spec))
            if self._vector:
                self._collection.create_search_index(vector_index_model(self._vector, self._spec))
        except OperationFailure as exc:
            raise BackendUnavailable(f"atlas {name}: cannot create search indexes (no mongot?): {exc}") from None
        self._until(lambda: self._awaited(0), self._timeout, "empty indexes")

    def load(self, docs: Sequence[IndexDoc]) -> None:
        revision = uuid.uuid4().hex
        if docs:
            self._collection.insert_many([stored_document(d, self._spec, revision) for d in docs])

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        for doc in docs:
            self._upsert(doc)

    def _upsert(self, doc: IndexDoc) -> None:
        """Waits until the indexes hold this version. A replacement also rebuilds the search
        index: Lucene keeps counting the replaced version in N, n and avgdl until a merge, so
        only a fresh build gives the statistics of a fresh load."""
        revision = uuid.uuid4().hex
        stored = stored_document(doc, self._spec, revision)
        replaced = self._collection.replace_one({"_id": doc.id}, stored, upsert=True).matched_count
        stale = self._lexical
        if replaced:
            self._lexical = _index_name("lexical")
            self._collection.create_search_index(search_index_model(self._lexical, self._spec))
        expected = self._collection.count_documents({})
        self._until(
            lambda: self._awaited(expected) or self._revision_missing(revision, stored.get(VECTOR_PATH)),
            self._timeout,
            f"document {doc.id!r}",
        )
        if replaced:
            self._collection.drop_search_index(stale)

    def wait_ready(self, expected: int, timeout: float) -> None:
        self._until(lambda: self._awaited(expected), timeout, f"{expected} documents")

    def _until(self, waiting_for: Callable[[], str | None], timeout: float, what: str) -> None:
        """Polls `waiting_for` (None: done). A query rejected meanwhile is retried, not fatal:
        an index can be listed as queryable a moment before mongot serves it."""
        from pymongo.errors import OperationFailure

        deadline = time.monotonic() + timeout
        while True:
            try:
                waiting = waiting_for()
            except OperationFailure as exc:
                waiting = f"query failed: {exc}"
            if waiting is None:
                return
            if time.monotonic() >= deadline:
                raise BackendUnavailable(
                    f"atlas {self._collection.name}: {what} not searchable after {timeout:g}s; last seen: {waiting}"
                )
            time.sleep(_POLL_SECONDS)

    def _awaited(self, expected: int) -> str | None:
        waiting = unready_indexes(self._collection.list_search_indexes(), self._names)
        if waiting:
            return waiting
        (meta,) = self._aggregate(count_pipeline(self._lexical)) or [{"count": {"total": 0}}]
        counts = {self._lexical: meta["count"]["total"]}
        if self._vector:
            pipeline = vector_count_pipeline(self._vector, self._spec.dimensions or 0, expected)
            counts[self._vector] = len(self._aggregate(pipeline))
        return missing_documents(counts, expected)

    def _revision_missing(self, revision: str, vector: list[float] | None) -> str | None:
        if not self._aggregate(revision_pipeline(self._lexical, revision)):
            return f"index {self._lexical} does not show revision {revision} yet"
        if self._vector and vector and not self._aggregate(vector_revision_pipeline(self._vector, vector, revision)):
            return f"index {self._vector} does not show revision {revision} yet"
        return None

    def _aggregate(self, pipeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Bounded: a `$search` on an index that is still building can otherwise hang."""
        return list(self._collection.aggregate(pipeline, maxTimeMS=_QUERY_MS))

    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        kinds = self._spec.attributes
        found = self._collection.find({"_id": {"$in": list(dict.fromkeys(ids))}}, {a: 1 for a in kinds})
        return {
            row["_id"]: {a: stored_value(kinds[a], row[a]) for a in kinds if row.get(a) not in (None, [])}
            for row in found
        }

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        self._spec.check_filters(filters)
        if not terms or limit <= 0 or filters.admits_nothing:
            return []
        batches = term_batches(terms, len(self._spec.fields))
        if len(batches) == 1:
            pipeline = lexical_pipeline(self._lexical, terms, self._spec, filters, limit + _TIE_MARGIN)
            return ranked([lexical_hit(row, self._spec.fields) for row in self._aggregate(pipeline)], limit)
        # Past Lucene's clause limit: every match of each batch, summed per document.
        pipelines = [lexical_pipeline(self._lexical, batch, self._spec, filters, None) for batch in batches]
        found = [[lexical_hit(row, self._spec.fields) for row in self._aggregate(p)] for p in pipelines]
        return ranked(merge_batches(found), limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        if not self._vector:
            raise BackendUnavailable(f"atlas index {self._collection.name} was created without vectors")
        self._spec.check_filters(filters)
        if limit <= 0 or filters.admits_nothing:
            return []
        pipeline = vector_pipeline(self._vector, query, self._spec, filters, limit + _TIE_MARGIN)
        return ranked([vector_hit(row) for row in self._aggregate(pipeline)], limit)

    def drop(self) -> None:
        """Dropping the collection drops its search indexes with it."""
        self._collection.database.drop_collection(self._collection.name)


class AtlasBackend:
    """One namespace is one collection in database `harness`, with its own search indexes."""

    name = "atlas"

    def __init__(self, client: MongoClient[dict[str, Any]], timeout: float = 120.0):
        self._client = client
        self._timeout = timeout

    @classmethod
    def connect(cls, url: str, *, timeout: float = 120.0, connect_timeout: float = 10.0) -> AtlasBackend:
        """`timeout` bounds each wait for mongot (index builds are slow on a cold start);
        `connect_timeout` bounds finding the server at all."""
        try:
            from pymongo import MongoClient
            from pymongo.errors import PyMongoError
        except ImportError:
            extra = "pip install 'memory-retrieval-harness[atlas]'"
            raise BackendUnavailable(f"atlas backend needs pymongo: {extra}") from None
        client: MongoClient[dict[str, Any]] = MongoClient(url, serverSelectionTimeoutMS=int(connect_timeout * 1000))
        try:
            client.admin.command("ping")
        except PyMongoError as exc:
            client.close()
            raise BackendUnavailable(f"atlas: cannot reach {redacted(url)}: {_first_reason(exc)}") from None
        return cls(client, timeout)

    def info(self) -> BackendInfo:
        version = self._client.admin.command("buildInfo")["version"]
        return BackendInfo(
            backend=self.name,
            engine="atlas search (lucene bm25) + atlas vector search",
            server_version=f"mongod {version}",
            lexical_scorer=LEXICAL_SCORER,
            vector_engine="atlas vector search, exact (ENN) cosine",
            notes=(
                "vectorSearchScore (1 + cos) / 2 is reported as cos",
                "a replaced document rebuilds the search index, so replaced versions never count in BM25 statistics",
            ),
        )

    def create_index(self, namespace: str, spec: IndexSpec) -> AtlasIndex:
        collection = self._client[DATABASE][check_name(namespace, "collection")]
        return AtlasIndex(collection, spec, self._timeout)

    def drop_namespace(self, namespace: str) -> None:
        """Remove a namespace by name (its collection, search indexes included)."""
        self._client[DATABASE].drop_collection(check_name(namespace, "collection"))

    def close(self) -> None:
        self._client.close()


def _first_reason(exc: Exception) -> str:
    """pymongo appends its whole topology description; the first cause is what a user can act on."""
    return re.split(r", Timeout: |\n", str(exc))[0] or type(exc).__name__


def _connect(url: str | None, _options: ConnectOptions) -> AtlasBackend:
    return AtlasBackend.connect(server_url(url))


DESCRIPTOR = BackendDescriptor(
    "atlas",
    _connect,
    server="atlas",
    local=False,  # Atlas Local has no local build: only where its registry image can be pulled
    sample_query="""mongosh '{url}' --eval 'db.getSiblingDB("harness").builtin.find().limit(5)'""",
    # Atlas computes in float32 (k1 = 1.2000000476837158); the exact engines agree to 1e-6.
    contract=ContractNotes(tolerance=1e-5, examples=5),
    url_schemes={"mongodb": UrlScheme("mongodb", 27017), "mongodb+srv": UrlScheme("mongodb", 27017)},
)
