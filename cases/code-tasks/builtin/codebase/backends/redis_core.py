"""Redis/Valkey "core" engine: per-field BM25 in sorted sets, exact cosine in Vector Sets.

Standard commands and Lua only, so it runs on any Redis >= 7 or Valkey (no Query Engine needed).
Every key of a namespace starts with `h:{<namespace>}:`: workers sharing a server never collide,
`drop` finds everything with one SCAN pattern, and the hash tag keeps a namespace in one cluster
slot, which the multi-key commands and the scripts below need.

Lexical (the contract in `base.py`, scored server-side):
    score = sum over (field f, term t) of weight_f * idf(t, f) * tfpart(t, f, doc)
    idf    = ln(1 + (N - n + 0.5) / (n + 0.5))
    tfpart = tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)),  k1 = 1.2, b = 0.75
with Lucene's statistics: N and avglen over the documents whose field f is non-empty (the hash
`len:<field>`), n = ZCARD of the posting list. For each (field, term) a ZSET `bm:<field>:<term>`
maps doc id -> tfpart, and `tf:<field>:<term>` keeps the raw term frequency. A query is one
script: ZUNIONSTORE of the posting lists with WEIGHTS weight_f * idf, ZINTERSTORE with the
filter sets at weight 0 (a filter never changes a score; one set per attribute value, `v:<attr>:<value>`,
booleans as 1 and 0, and per attribute `has:<attr>` and `none:<attr>` for present and absent),
ZRANGE REV for the top (widened to every document whose rounded score ties the last one, so the
`rank_key` tie-break is exact), ZINTER of each posting list with the top for the clauses (the
union is built in chunks, since Lua's unpack takes a few thousand values); the scratch keys are
deleted by the same script, so nothing leaks and no other client ever sees them.

Upsert exactness: tfpart depends on avglen, which moves with every write, so each write rewrites
the postings of every field from the raw frequencies and lengths (one script, inside the write's
MULTI). That costs O(postings in the namespace) per write, cheap at per-namespace sizes (bulk
`load` pays it once), and keeps the read path to native sorted-set commands, the part measured.
Computing tfpart at query time instead would make every query pay for the lengths.

Vectors: Redis 8 Vector Sets, one set per namespace (`VADD ... NOQUANT` keeps float32), searched
with `VSIM ... TRUTH` (an exact linear scan, so FILTER-EF does not apply) and FILTER expressions
over the documents' attributes as JSON; `_present` lists the attributes a document has, since an
expression that reads a missing field skips the element. VSIM's similarity s = (1 + cos) / 2 is reported
as cos = 2s - 1. Servers without Vector Sets (Valkey) index text only and refuse `vector`.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from harness.backends.base import (
    BM25_B,
    BM25_K1,
    Absent,
    AnyOf,
    AttributeType,
    BackendInfo,
    Clause,
    Eq,
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
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, UrlScheme, server_url
from harness.errors import BackendUnavailable
from harness.messages import masked, one_line, redacted

if TYPE_CHECKING:
    from redis import Redis
    from redis.client import Pipeline
    from redis.typing import EncodableT, FieldT

LEXICAL_SCORER = (
    "per-field BM25 in sorted sets (Lucene statistics), k1=1.2 b=0.75, idf=ln(1+(N-n+0.5)/(n+0.5)), tf*(k1+1) form"
)
_NAMESPACE = re.compile(r"^[A-Za-z0-9_.-]+$")
_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PLAIN = re.compile(r"^[A-Za-z0-9_:./@+-]*$")
_BATCH = 256
_TIE_SLACK = 32

_REWEIGH = """
-- KEYS: (terms, lengths) per field; ARGV: prefix, k1, b, field names.
local prefix, k1, b = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for j = 1, #ARGV - 3 do
  local field, terms_key = ARGV[3 + j], KEYS[2 * j - 1]
  local flat = redis.call('HGETALL', KEYS[2 * j])
  local lengths, total = {}, 0
  for i = 1, #flat, 2 do
    lengths[flat[i]] = tonumber(flat[i + 1])
    total = total + lengths[flat[i]]
  end
  local avg = total / (#flat / 2)
  for _, term in ipairs(redis.call('SMEMBERS', terms_key)) do
    local raw = redis.call('ZRANGE', prefix .. 'tf:' .. field .. ':' .. term, 0, -1, 'WITHSCORES')
    local posting = prefix .. 'bm:' .. field .. ':' .. term
    redis.call('DEL', posting)
    if #raw == 0 then
      redis.call('SREM', terms_key, term)
    end
    local args = {}
    for i = 1, #raw, 2 do
      local tf = tonumber(raw[i + 1])
      args[#args + 1] = string.format('%.17g', tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[raw[i]] / avg)))
      args[#args + 1] = raw[i]
      if #args == 1000 or i + 1 == #raw then
        redis.call('ZADD', posting, unpack(args))
        args = {}
      end
    end
  end
end
"""

_LEXICAL = """
-- KEYS: result, one scratch key per filter group, p posting lists, their fields' length hashes,
--       the groups' sets. ARGV: limit, p, group count g, p field weights, g group sizes.
-- Lua's unpack takes at most a few thousand values, so the union is built in chunks.
local limit, p, g = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local result, chunk = KEYS[1], 500
local weights = {}
for i = 1, p do
  local posting = KEYS[1 + g + i]
  local docs, df = redis.call('HLEN', KEYS[1 + g + p + i]), redis.call('ZCARD', posting)
  weights[i] = string.format('%.17g', tonumber(ARGV[3 + i]) * math.log(1 + (docs - df + 0.5) / (df + 0.5)))
end
redis.call('DEL', result)
for from = 1, p, chunk do
  local to = math.min(from + chunk - 1, p)
  local union, tail = {result, to - from + 1}, {'WEIGHTS'}
  if from > 1 then  -- the running sum joins the next chunk at weight 1
    union[2] = to - from + 2
    union[3] = result
    tail[2] = 1
  end
  for i = from, to do
    union[#union + 1] = KEYS[1 + g + i]
    tail[#tail + 1] = weights[i]
  end
  for _, value in ipairs(tail) do union[#union + 1] = value end
  redis.call('ZUNIONSTORE', unpack(union))
end
if g > 0 then
  local inter, at = {result, g + 1, result}, 1 + g + 2 * p
  for j = 1, g do
    local size = tonumber(ARGV[3 + p + j])
    if size == 1 then
      inter[#inter + 1] = KEYS[at + 1]
    else
      redis.call('SUNIONSTORE', KEYS[1 + j], unpack(KEYS, at + 1, at + size))
      inter[#inter + 1] = KEYS[1 + j]
    end
    at = at + size
  end
  inter[#inter + 1] = 'WEIGHTS'
  inter[#inter + 1] = 1
  for j = 1, g do inter[#inter + 1] = 0 end
  redis.call('ZINTERSTORE', unpack(inter))
end
local top = redis.call('ZRANGE', result, 0, limit - 1, 'REV', 'WITHSCORES')
if #top == 2 * limit then
  local floor = string.format('%.17g', tonumber(top[#top]) - 1e-9)
  top = redis.call('ZRANGE', result, '+inf', floor, 'BYSCORE', 'REV', 'WITHSCORES')
end
-- Keep only the returned documents, then read each posting's part of them: ZINTER walks the
-- smaller set, so the clauses cost what they hold, not postings x documents.
redis.call('ZREMRANGEBYRANK', result, 0, -(#top / 2 + 1))
local parts = {}
for i = 1, p do
  parts[i] = redis.call('ZINTER', 2, result, KEYS[1 + g + i], 'WEIGHTS', 0, 1, 'WITHSCORES')
end
redis.call('DEL', unpack(KEYS, 1, 1 + g))
return {top, weights, parts}
"""


def open_client(url: str, name: str, *, protocol: int) -> Redis:
    """A connected redis-py client, or a one-line `BackendUnavailable` (no client, no server)."""
    try:
        import redis

        from harness.backends.redis_client import InterruptibleRedis
    except ImportError as exc:
        raise BackendUnavailable(
            f"the {name} backend needs redis-py: pip install 'memory-retrieval-harness[redis]'"
        ) from exc
    client = InterruptibleRedis.from_url(url, decode_responses=True, protocol=protocol)
    try:
        client.ping()
    except redis.RedisError as exc:
        client.close()
        raise BackendUnavailable(f"{name} at {redacted(url)} is unreachable: {masked(one_line(exc))}") from exc
    return client


def server_identity(client: Redis) -> tuple[str, str]:
    """(flavour, version): Valkey also reports `redis_version` (7.2.4), so look for it first."""
    server = client.info("server")
    if "valkey_version" in server:
        return "valkey", str(server["valkey_version"])
    return "redis", str(server["redis_version"])


def unlink_prefix(client: Redis, prefix: str) -> None:
    """UNLINK every key under `prefix`, in batches (SCAN tolerates deletes mid-scan)."""
    batch: list[str] = []
    for key in client.scan_iter(match=prefix + "*", count=1000):
        batch.append(key)
        if len(batch) == 1000:
            client.unlink(*batch)
            batch.clear()
    if batch:
        client.unlink(*batch)


def _attribute(value: str) -> str:
    """A FILTER-safe form of a string: Redis 8.0 string literals have no escapes, so anything
    outside a plain alphabet is hex-encoded (prefix `~` keeps the mapping one-to-one)."""
    return value if _PLAIN.match(value) else "~" + value.encode().hex()


def _literal(value: str) -> str:
    return f'"{_attribute(value)}"'


def vsim_filter(filters: Filters, spec: IndexSpec) -> str | None:
    """The VSIM FILTER expression for `filters` (None: no restriction); an empty any-of admits
    nothing and is handled by the caller."""
    parts = []
    for condition in filters.conditions:
        name, kind = condition.attribute, spec.attributes[condition.attribute]
        if isinstance(condition, Present | Absent):
            test = f'"{name}" in ._present'
            parts.append(test if isinstance(condition, Present) else f"not ({test})")
        elif isinstance(condition, Eq) and kind is AttributeType.BOOLEAN:  # check_filters: booleans take Eq only
            parts.append(f".{name} == {int(condition.value)}")
        else:
            values = [str(v) for v in condition.accepted]
            if kind is AttributeType.KEYWORDS:
                parts.append("(" + " or ".join(f"{_literal(v)} in .{name}" for v in values) + ")")
            elif isinstance(condition, AnyOf):
                parts.append(f".{name} in [{', '.join(_literal(v) for v in values)}]")
            else:
                parts.append(f".{name} == {_literal(values[0])}")
    return " and ".join(parts) or None


def vsim_attributes(doc: IndexDoc) -> dict[str, object]:
    """A document's attributes as VADD SETATTR stores them (see `vsim_filter`)."""
    stored: dict[str, object] = {"_present": sorted(doc.attributes)}
    for name, value in doc.attributes.items():
        if isinstance(value, bool):
            stored[name] = int(value)
        elif isinstance(value, frozenset):
            stored[name] = [_attribute(v) for v in sorted(value)]
        else:
            stored[name] = _attribute(value)
    return stored


def _stored(doc: IndexDoc) -> dict[str, object]:
    """A document's attributes as JSON values (sets as sorted lists), read back by `attributes`."""
    return {a: sorted(v) if isinstance(v, frozenset) else v for a, v in doc.attributes.items()}


@dataclass(frozen=True, slots=True)
class _Keys:
    prefix: str

    @property
    def docs(self) -> str:
        return self.prefix + "docs"

    @property
    def vectors(self) -> str:
        return self.prefix + "vec"

    @property
    def result(self) -> str:
        return self.prefix + "tmp:result"

    def scratch(self, group: int) -> str:
        return f"{self.prefix}tmp:group:{group}"

    def doc(self, doc_id: str) -> str:
        return self.prefix + "doc:" + doc_id

    def value(self, attribute: str, value: str | bool) -> str:
        """Documents whose attribute has this value (booleans as 1 and 0)."""
        return f"{self.prefix}v:{attribute}:{int(value) if isinstance(value, bool) else value}"

    def present(self, attribute: str) -> str:
        return f"{self.prefix}has:{attribute}"

    def absent(self, attribute: str) -> str:
        return f"{self.prefix}none:{attribute}"

    def memberships(self, doc: IndexDoc, attributes: Iterable[str]) -> list[str]:
        """Every filter set the document belongs to."""
        keys = []
        for name in attributes:
            values = doc.values(name)
            if values:
                keys += [*(self.value(name, v) for v in values), self.present(name)]
            else:
                keys.append(self.absent(name))
        return keys

    def terms(self, field: str) -> str:
        return self.prefix + "terms:" + field

    def lengths(self, field: str) -> str:
        return self.prefix + "len:" + field

    def tf(self, field: str, term: str) -> str:
        return f"{self.prefix}tf:{field}:{term}"

    def posting(self, field: str, term: str) -> str:
        return f"{self.prefix}bm:{field}:{term}"


class RedisCoreIndex:
    def __init__(self, client: Redis, namespace: str, spec: IndexSpec, vectors_refused: str | None):
        """`vectors_refused`: why this server cannot search vectors, or None when it can."""
        if not _NAMESPACE.match(namespace):
            raise ValueError(f"namespace must match {_NAMESPACE.pattern}: {namespace!r}")
        for field in spec.fields:
            if not _FIELD.match(field):
                raise ValueError(f"field name must match {_FIELD.pattern}: {field!r}")
        self._client = client
        self._ns = namespace
        self._spec = spec
        self._keys = _Keys(f"h:{{{namespace}}}:")
        self._refused = vectors_refused
        self._reweigh = client.register_script(_REWEIGH)
        self._lexical = client.register_script(_LEXICAL)

    @property
    def _stores_vectors(self) -> bool:
        return bool(self._spec.dimensions) and self._refused is None

    # -- writes -------------------------------------------------------------------------------

    def _check(self, docs: Sequence[IndexDoc]) -> list[str]:
        """The documents' ids, once each is checked against the spec and none comes twice: a
        second version in the same write would be indexed over the first, never unindexed."""
        for doc in docs:
            self._spec.check_doc(doc)
        ids = [d.id for d in docs]
        if len(set(ids)) != len(ids):
            raise ValueError("a write got the same document id twice")
        return ids

    def load(self, docs: Sequence[IndexDoc]) -> None:
        ids = self._check(docs)
        if ids and any(self._client.smismember(self._keys.docs, ids)):
            raise ValueError(f"load expects ids new to namespace {self._ns!r}; use upsert to replace")
        for start in range(0, len(docs), _BATCH):
            with self._client.pipeline(transaction=False) as pipe:
                for doc in docs[start : start + _BATCH]:
                    self._index(pipe, doc)
                pipe.execute()
        self._rescore(self._client)

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        """The stored versions are read in one round trip and replaced in one transaction, with
        one rescore of the postings for the whole batch."""
        self._check(docs)
        with self._client.pipeline(transaction=False) as reads:
            for doc in docs:
                reads.hgetall(self._keys.doc(doc.id))
            stored = cast(list[dict[str, str]], reads.execute())  # decode_responses
        with self._client.pipeline(transaction=True) as pipe:
            for doc, previous in zip(docs, stored, strict=True):
                if previous:
                    self._unindex(pipe, doc.id, previous)
                self._index(pipe, doc)
            self._rescore(pipe)
            pipe.execute()

    def _index(self, pipe: Pipeline, doc: IndexDoc) -> None:
        keys = self._keys
        memberships = keys.memberships(doc, self._spec.attributes)
        record: dict[FieldT, EncodableT] = {"sets": json.dumps(memberships), "attrs": json.dumps(_stored(doc))}
        pipe.sadd(keys.docs, doc.id)
        for key in memberships:
            pipe.sadd(key, doc.id)
        for field in self._spec.fields:
            tokens = doc.fields.get(field, "").split()
            record[f"f:{field}"] = " ".join(tokens)
            if tokens:
                pipe.hset(keys.lengths(field), doc.id, len(tokens))
            else:  # an empty field is absent: it counts in neither N nor avglen of that field
                pipe.hdel(keys.lengths(field), doc.id)
            counts = Counter(tokens)
            for term, tf in counts.items():
                pipe.zadd(keys.tf(field, term), {doc.id: tf})
            if counts:
                pipe.sadd(keys.terms(field), *counts)
        pipe.hset(keys.doc(doc.id), mapping=record)
        if self._stores_vectors:
            self._add_vector(pipe, doc)

    def _add_vector(self, pipe: Pipeline, doc: IndexDoc) -> None:
        if doc.vector is None:
            raise ValueError(f"document {doc.id!r} has no vector but the index has {self._spec.dimensions} dimensions")
        blob = unit(doc.vector).tobytes()
        attributes = json.dumps(vsim_attributes(doc))
        pipe.execute_command("VADD", self._keys.vectors, "FP32", blob, doc.id, "NOQUANT", "SETATTR", attributes)

    def _unindex(self, pipe: Pipeline, doc_id: str, record: dict[str, str]) -> None:
        """Undo the memberships and raw frequencies of a stored document (postings follow in
        `_rescore`); its vector is replaced in place by the next VADD."""
        keys = self._keys
        for key in json.loads(record["sets"]):
            pipe.srem(key, doc_id)
        for field in self._spec.fields:
            for term in set(record.get(f"f:{field}", "").split()):
                pipe.zrem(keys.tf(field, term), doc_id)

    def _rescore(self, client: Redis | Pipeline) -> None:
        fields = list(self._spec.fields)
        keys = [k for f in fields for k in (self._keys.terms(f), self._keys.lengths(f))]
        self._reweigh(keys=keys, args=[self._keys.prefix, BM25_K1, BM25_B, *fields], client=client)

    def wait_ready(self, expected: int, timeout: float) -> None:  # noqa: ARG002 - the Backend protocol's signature; writes are synchronous, nothing to wait for
        """Writes are synchronous (EXEC returned), so a count that differs is an error, not lag."""
        count = self._client.scard(self._keys.docs)
        vectors = self._client.execute_command("VCARD", self._keys.vectors) if self._stores_vectors else count
        if count != expected or vectors != expected:
            raise BackendUnavailable(
                f"redis namespace {self._ns}: {count} documents and {vectors} vectors, expected {expected}"
            )

    # -- reads --------------------------------------------------------------------------------

    def _filter_groups(self, filters: Filters) -> list[list[str]] | None:
        """Sets a document must belong to, one of each group; None when nothing can match."""
        self._spec.check_filters(filters)
        keys = self._keys
        groups = []
        for condition in filters.conditions:
            name = condition.attribute
            if isinstance(condition, Present):
                groups.append([keys.present(name)])
            elif isinstance(condition, Absent):
                groups.append([keys.absent(name)])
            else:
                groups.append([keys.value(name, v) for v in condition.accepted])
        return None if any(not g for g in groups) else groups

    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        wanted = list(dict.fromkeys(ids))
        with self._client.pipeline(transaction=False) as pipe:
            for doc_id in wanted:
                pipe.hget(self._keys.doc(doc_id), "attrs")
            replies = pipe.execute()
        kinds = self._spec.attributes
        return {
            doc_id: {a: stored_value(kinds[a], v) for a, v in json.loads(reply).items()}
            for doc_id, reply in zip(wanted, replies, strict=True)
            if reply is not None
        }

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        groups = self._filter_groups(filters)
        pairs = [(f, t) for f in self._spec.fields for t in dict.fromkeys(terms)]
        if groups is None or not pairs or limit < 1:
            return []
        keys = [
            self._keys.result,
            *(self._keys.scratch(j) for j in range(len(groups))),
            *(self._keys.posting(f, t) for f, t in pairs),
            *(self._keys.lengths(f) for f, _ in pairs),
            *(k for g in groups for k in g),
        ]
        args = [limit, len(pairs), len(groups), *(self._spec.fields[f] for f, _ in pairs), *(len(g) for g in groups)]
        top, weights, parts = self._lexical(keys=keys, args=args)
        clauses: dict[str, list[Clause]] = defaultdict(list)
        for (field, term), weight, part in zip(pairs, weights, parts, strict=True):
            for doc_id, tfpart in zip(part[::2], part[1::2], strict=True):
                clauses[doc_id].append(Clause(field, term, float(weight) * float(tfpart)))
        hits = [
            Hit(doc_id, float(score), tuple(clauses[doc_id])) for doc_id, score in zip(top[::2], top[1::2], strict=True)
        ]
        return ranked(hits, limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        if self._refused is not None:
            raise BackendUnavailable(self._refused)
        if not self._spec.dimensions:
            raise BackendUnavailable(f"redis namespace {self._ns} was created without vectors")
        if self._filter_groups(filters) is None or limit < 1:
            return []
        blob = unit(query).tobytes()
        command: list[Any] = ["VSIM", self._keys.vectors, "FP32", blob, "WITHSCORES", "COUNT", limit + _TIE_SLACK]
        expression = vsim_filter(filters, self._spec)
        if expression:
            command += ["FILTER", expression]
        reply = self._client.execute_command(*command, "TRUTH")
        pairs: Iterable[tuple[str, Any]] = (
            reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2], strict=True)
        )
        hits = []
        for doc_id, similarity in pairs:
            cosine = 2.0 * float(similarity) - 1.0
            hits.append(Hit(doc_id, cosine, (Clause("vector", "cosine", cosine),)))
        return ranked(hits, limit)

    def drop(self) -> None:
        unlink_prefix(self._client, self._keys.prefix)


class RedisCoreBackend:
    """Sorted-set BM25 plus Vector Sets, on plain Redis or Valkey; see the module docstring."""

    def __init__(self, client: Redis, name: str):
        if name not in ("redis", "valkey"):
            raise ValueError(f"name must be 'redis' or 'valkey', not {name!r}")
        self.name = name
        self._client = client
        self._flavour, self._version = server_identity(client)
        has_vectors = bool(client.command_list(pattern="vadd"))
        refusal = f"vector search is not supported on {self._flavour} {self._version} (no vector engine)"
        self._refused = None if has_vectors else refusal

    @classmethod
    def connect(cls, url: str, name: str) -> RedisCoreBackend:
        return cls(open_client(url, name, protocol=3), name)

    def info(self) -> BackendInfo:
        notes = () if self._refused is None else (self._refused,)
        return BackendInfo(
            backend=self.name,
            engine=f"{self._flavour} core",
            server_version=f"{self._flavour} {self._version}",
            lexical_scorer=LEXICAL_SCORER,
            vector_engine=None if self._refused else "redis vector sets, VSIM TRUTH (exact float32 cosine)",
            notes=notes,
        )

    def create_index(self, namespace: str, spec: IndexSpec) -> RedisCoreIndex:
        index = RedisCoreIndex(self._client, namespace, spec, self._refused)
        index.drop()
        return index

    def drop_namespace(self, namespace: str) -> None:
        """Remove a namespace by name, e.g. one a killed run left behind."""
        RedisCoreIndex(self._client, namespace, IndexSpec({}), self._refused).drop()

    def close(self) -> None:
        self._client.close()


REDIS_URLS = {"redis": UrlScheme("redis", 6379, "/0"), "rediss": UrlScheme("rediss", 6379, "/0")}
"""Redis and Valkey servers are both named by redis:// (TLS: rediss://), database 0 by default."""


def _connect_valkey(url: str | None, _options: ConnectOptions) -> RedisCoreBackend:
    return RedisCoreBackend.connect(server_url(url), "valkey")


VALKEY = BackendDescriptor(
    "valkey",
    _connect_valkey,
    server="valkey",
    sample_query="valkey-cli -u {url} --scan --pattern 'h:{{builtin}}:*' --count 100",
    url_schemes=REDIS_URLS,
)
