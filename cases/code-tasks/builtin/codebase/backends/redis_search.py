"""Redis Query Engine backend (official `redis:8` images): FT.SEARCH with BM25STD, HNSW KNN.

`detect` picks it where FT.SEARCH exists; Debian's redis 8.0.2 has no FT.*, use `redis_core` there.

Not the per-field contract of `base.py`: BM25STD's document length is summed over all TEXT
fields, its inverted index (hence the IDF) is per term across fields with N counting every
document, and a field's WEIGHT is
folded into the term frequency as an integer (WEIGHT 0.5 acts as 1, 2.5 as 2) (backends.md §2.2).
Its scores differ from the per-field formula, so the exact-score contract checks do not apply to
it; the ranking-level ones (filters, order, vectors) do. One clause per term, over all fields
(`name|aliases`): its score is the term's share of the exact total, shares recomputed from the
2-decimal factors EXPLAINSCORE prints.

Attribute `x` is the TAG field `_x` (keywords split on `,`, booleans as 1 and 0, INDEXMISSING so
that `ismissing(@_x)` finds documents without it). TAG predicates add to the score in FT.SEARCH,
so the filters sit in a `$weight: 0.0` group: they restrict without scoring, and statistics stay
those of the whole index. After an upsert the term
document frequencies may still count the replaced document until the index GC runs, so upserts
are not guaranteed exact on the next query. Vectors: HNSW, COSINE distance (1 - cos), KNN with the
filters as prefilter and EF_RUNTIME >= k. Replies are read as RESP2, the documented shapes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.backends.base import (
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
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, ContractNotes, server_url
from harness.backends.redis_core import REDIS_URLS, RedisCoreBackend, open_client, server_identity, unlink_prefix
from harness.errors import BackendUnavailable

if TYPE_CHECKING:
    from redis import Redis
    from redis.typing import EncodableT, FieldT

_NAMESPACE = re.compile(r"^[A-Za-z0-9_.-]+$")
_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_UNSAFE = re.compile(r"(\W)")
_SEPARATOR = ","
_VECTOR = "_vec"
_EF_FLOOR = 100
_TIE_SLACK = 32
_POLL = 0.05
_LEAF = re.compile(
    r"^\+?(?P<term>.+?): \(\S+ = Weight (?P<weight>\S+) \* IDF (?P<idf>\S+) \* \(F (?P<f>\S+) \* \(k1 (?P<k1>\S+) \+ 1\)\)"
    r" / \(F \S+ \+ k1 \S+ \* \(1 - b (?P<b>\S+) \+ b \S+ \* Doc Len (?P<len>\S+) / Average Doc Len (?P<avg>\S+)\)\)\)$"
)
_GROUP = re.compile(r"^\(Weight (?P<weight>\S+) \* children BM25 \S+\)$")
_FINAL = re.compile(r"^Final BM25 : words BM25 \S+ \* document score (?P<score>\S+)")


def detect(client: Redis) -> bool:
    """Whether the server has the Query Engine (FT.SEARCH), asked once via COMMAND LIST."""
    return bool(client.command_list(pattern="ft.search"))


def _escape(value: str) -> str:
    """Query-syntax escape: every non-word character gets a backslash (tags and terms alike)."""
    return _UNSAFE.sub(r"\\\1", value)


def create_command(index: str, prefix: str, spec: IndexSpec) -> list[Any]:
    schema: list[Any] = []
    for field, weight in spec.fields.items():
        schema += [field, "TEXT", "NOSTEM", "WEIGHT", weight]
    for name, kind in spec.attributes.items():
        if kind is AttributeType.BOOLEAN:
            schema += [f"_{name}", "TAG", "INDEXMISSING"]
        else:
            schema += [f"_{name}", "TAG", "SEPARATOR", _SEPARATOR, "CASESENSITIVE", "INDEXMISSING"]
    if spec.dimensions:
        schema += [_VECTOR, "VECTOR", "HNSW", 6, "TYPE", "FLOAT32", "DIM", spec.dimensions, "DISTANCE_METRIC", "COSINE"]
    # STOPWORDS 0: analysed text is indexed as given, stopwords included, like every other engine.
    return ["FT.CREATE", index, "ON", "HASH", "PREFIX", 1, prefix, "STOPWORDS", 0, "SCHEMA", *schema]


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


def lexical_query(fields: Sequence[str], terms: Sequence[str], filters: Filters) -> str | None:
    """Any term in any field, AND the filters at weight 0; None when nothing can match."""
    tags = _tag_filters(filters)
    if tags is None or not terms:
        return None
    text = f"(@{'|'.join(fields)}:({'|'.join(_escape(t) for t in dict.fromkeys(terms))}))"
    return f"{text} (({' '.join(tags)}) => {{ $weight: 0.0; }})" if tags else text


def search_command(index: str, query: str, limit: int) -> list[Any]:
    return [
        "FT.SEARCH", index, query, "NOCONTENT", "VERBATIM", "WITHSCORES", "EXPLAINSCORE",
        "SCORER", "BM25STD", "LIMIT", 0, limit, "DIALECT", 2,
    ]  # fmt: skip


def knn_command(index: str, blob: bytes, filters: Filters, k: int) -> list[Any]:
    tags = _tag_filters(filters)
    if tags is None:
        raise ValueError("these filters admit nothing; there is no KNN query for them")
    prefilter = f"({' '.join(tags)})" if tags else "*"
    return [
        "FT.SEARCH", index, f"{prefilter}=>[KNN $K @{_VECTOR} $BLOB EF_RUNTIME $EF AS __dist]",
        "PARAMS", 6, "K", k, "BLOB", blob, "EF", max(k, _EF_FLOOR),
        "SORTBY", "__dist", "ASC", "RETURN", 1, "__dist", "LIMIT", 0, k, "DIALECT", 2,
    ]  # fmt: skip


def _leaf_value(leaf: re.Match[str]) -> float:
    weight, idf, f = float(leaf["weight"]), float(leaf["idf"]), float(leaf["f"])
    k1, b, length, avg = float(leaf["k1"]), float(leaf["b"]), float(leaf["len"]), float(leaf["avg"])
    return weight * idf * f * (k1 + 1) / (f + k1 * (1 - b + b * length / avg))


def explain_shares(tree: list[Any]) -> dict[str, float]:
    """Term -> approximate contribution, from an EXPLAINSCORE tree: nodes are `[header, children]`,
    leaves are strings; group weights and the document score multiply down to the leaves."""
    shares: dict[str, float] = {}

    def walk(node: Any, factor: float) -> None:
        if isinstance(node, str):
            leaf = _LEAF.match(node)
            if leaf and factor:
                shares[leaf["term"]] = shares.get(leaf["term"], 0.0) + factor * _leaf_value(leaf)
            return
        header, children = node[0], node[1] if len(node) > 1 else []
        group, final = _GROUP.match(header), _FINAL.match(header)
        if group:
            factor *= float(group["weight"])
        elif final:
            factor *= float(final["score"])
        for child in children:
            walk(child, factor)

    walk(tree, 1.0)
    return shares


def parse_search_reply(reply: list[Any], prefix: str, field_label: str) -> list[Hit]:
    """FT.SEARCH NOCONTENT WITHSCORES EXPLAINSCORE (RESP2): total, then key, [score, explanation]."""
    hits = []
    for key, (score, tree) in zip(reply[1::2], reply[2::2], strict=True):
        total = float(score)
        shares = explain_shares(tree)
        whole = sum(shares.values())
        clauses = tuple(Clause(field_label, t, total * s / whole) for t, s in shares.items()) if whole > 0 else ()
        hits.append(Hit(key.removeprefix(prefix), total, clauses))
    return hits


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
        self._name = f"h_{namespace}"
        self._keys = f"h:{{{namespace}}}:"
        self._prefix = self._keys + "d:"

    def create(self) -> None:
        self.drop()
        self._client.execute_command(*create_command(self._name, self._prefix, self._spec))

    def _hash(self, doc: IndexDoc) -> dict[FieldT, EncodableT]:
        self._spec.check_doc(doc)
        record: dict[FieldT, EncodableT] = {f: doc.fields.get(f, "") for f in self._spec.fields}
        for name, value in doc.attributes.items():
            values = sorted(value) if isinstance(value, frozenset) else [value]
            if any(isinstance(v, str) and _SEPARATOR in v for v in values):
                raise ValueError(f"attribute {name!r} of {doc.id!r} contains the tag separator {_SEPARATOR!r}")
            record[f"_{name}"] = int(value) if isinstance(value, bool) else _SEPARATOR.join(map(str, values))
        if self._spec.dimensions:
            if doc.vector is None:
                raise ValueError(
                    f"document {doc.id!r} has no vector but the index has {self._spec.dimensions} dimensions"
                )
            record[_VECTOR] = unit(doc.vector).tobytes()
        return record

    def load(self, docs: Sequence[IndexDoc]) -> None:
        records = [(self._prefix + doc.id, self._hash(doc)) for doc in docs]
        with self._client.pipeline(transaction=False) as pipe:
            for key, record in records:
                pipe.hset(key, mapping=record)
            pipe.execute()

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        """HSET of a hash under the prefix reindexes it synchronously; the attributes the new
        version lacks are deleted in the same transaction, so they read as missing."""
        with self._client.pipeline(transaction=True) as pipe:
            for doc in docs:
                record = self._hash(doc)
                absent = [f"_{a}" for a in self._spec.attributes if f"_{a}" not in record]
                if absent:
                    pipe.hdel(self._prefix + doc.id, *absent)
                pipe.hset(self._prefix + doc.id, mapping=record)
            pipe.execute()

    def wait_ready(self, expected: int, timeout: float) -> None:
        """Poll FT.INFO until the background scan is done and every document is indexed."""
        deadline = time.monotonic() + timeout
        while True:
            state = parse_info(self._client.execute_command("FT.INFO", self._name))
            if state.failures:
                raise BackendUnavailable(f"redis index {self._name}: {state.failures} documents failed to index")
            if not state.indexing and state.num_docs == expected:
                return
            if time.monotonic() > deadline:
                raise BackendUnavailable(
                    f"redis index {self._name}: {state.num_docs} of {expected} documents after {timeout:g}s"
                )
            time.sleep(_POLL)

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

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        self._spec.check_filters(filters)
        query = lexical_query(list(self._spec.fields), terms, filters)
        if query is None or limit < 1:
            return []
        reply = self._client.execute_command(*search_command(self._name, query, limit + _TIE_SLACK))
        return ranked(parse_search_reply(reply, self._prefix, "|".join(self._spec.fields)), limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        if not self._spec.dimensions:
            raise BackendUnavailable(f"redis index {self._name} was created without vectors")
        self._spec.check_filters(filters)
        if _tag_filters(filters) is None or limit < 1:
            return []
        command = knn_command(self._name, unit(query).tobytes(), filters, limit + _TIE_SLACK)
        return ranked(parse_knn_reply(self._client.execute_command(*command), self._prefix), limit)

    def drop(self) -> None:
        if self._name in self._client.execute_command("FT._LIST"):
            self._client.execute_command("FT.DROPINDEX", self._name, "DD")
        unlink_prefix(self._client, self._keys)


class RedisSearchBackend:
    """BM25STD and HNSW inside Redis; see the module docstring for how it departs from the contract."""

    name = "redis"

    def __init__(self, client: Redis):
        self._client = client
        _, self._version = server_identity(client)
        self._search = next((str(m["ver"]) for m in client.module_list() if m.get("name") == "search"), "unknown")

    @classmethod
    def connect(cls, url: str) -> RedisSearchBackend:
        client = open_client(url, cls.name, protocol=2)
        if not detect(client):
            client.close()
            raise BackendUnavailable("this redis has no Query Engine (no FT.SEARCH); use the core engine")
        return cls(client)

    def info(self) -> BackendInfo:
        return BackendInfo(
            backend=self.name,
            engine="redis query engine",
            server_version=f"redis {self._version}, search {self._search}",
            lexical_scorer="BM25STD k1=1.2 b=0.75, doc length over all TEXT fields, integer field weights",
            vector_engine="redis query engine HNSW, COSINE, EF_RUNTIME >= k",
            notes=("BM25STD is not the per-field contract: compare rankings, not raw scores",),
        )

    def create_index(self, namespace: str, spec: IndexSpec) -> RedisSearchIndex:
        index = RedisSearchIndex(self._client, namespace, spec)
        index.create()
        return index

    def drop_namespace(self, namespace: str) -> None:
        """Remove a namespace by name (its index and its keys), e.g. one a killed run left behind."""
        RedisSearchIndex(self._client, namespace, IndexSpec({})).drop()

    def close(self) -> None:
        self._client.close()


def _connect_redis(url: str | None, _options: ConnectOptions) -> RedisSearchBackend | RedisCoreBackend:
    """The Query Engine where the server has one (the `redis:8` image), else the core engine."""
    probe = open_client(server_url(url), "redis", protocol=2)
    try:
        has_query_engine = detect(probe)
    finally:
        probe.close()
    return RedisSearchBackend.connect(server_url(url)) if has_query_engine else _connect_core(server_url(url))


def _connect_core(url: str) -> RedisCoreBackend:
    return RedisCoreBackend.connect(url, "redis")


REDIS = BackendDescriptor(
    "redis",
    _connect_redis,
    server="redis",
    sample_query="redis-cli -u {url} --scan --pattern 'h:{{builtin}}:*' --count 100",
    # BM25STD is not the per-field contract (see above): the contract holds the core engine to it.
    contract=ContractNotes(engine=_connect_core),
    url_schemes=REDIS_URLS,
)
