"""Redis and Valkey backends: the core engine (redis-core, valkey) and the Query Engine (redis) on
live servers, besides the protocol contract (tests/backends/contract.py): the built-in suite, what
the Query Engine's per-field indexes hold, and its commands and reply parsing without a server."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import redis

from harness.backends import redis_search
from harness.backends.base import Absent, AnyOf, Eq, Filters, IndexSpec, Present
from harness.backends.embedded import EmbeddedBackend
from harness.backends.redis_core import RedisCoreBackend, vsim_attributes, vsim_filter
from harness.backends.redis_search import RedisSearchBackend
from harness.errors import BackendUnavailable
from harness.evaluation.embedders import suite_embedder
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.runner import execute
from harness.pipeline import Mode
from harness.suites import BUILTIN, load_suite
from tests.backends import contract


def _connect(url: str, name: str) -> Iterator[RedisCoreBackend]:
    backend = RedisCoreBackend.connect(url, name)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def redis_backend(server_url) -> Iterator[RedisCoreBackend]:
    yield from _connect(server_url("redis-core"), "redis-core")


@pytest.fixture(scope="module")
def valkey_backend(server_url) -> Iterator[RedisCoreBackend]:
    yield from _connect(server_url("valkey"), "valkey")


@pytest.fixture(scope="module", params=["redis-core", "valkey"])
def core(request: pytest.FixtureRequest) -> RedisCoreBackend:
    return request.getfixturevalue("redis_backend" if request.param == "redis-core" else "valkey_backend")


@pytest.fixture(scope="module")
def query_engine(server_url) -> Iterator[RedisSearchBackend]:
    backend = RedisSearchBackend.connect(server_url("redis"))
    yield backend
    backend.close()


def _keys(backend: RedisCoreBackend, namespace: str) -> list[str]:
    return list(backend._client.scan_iter(match=f"h:{{{namespace}}}:*"))


# -- contract ---------------------------------------------------------------------------------


def test_vector_refused_on_valkey(valkey_backend: RedisCoreBackend) -> None:
    index = valkey_backend.create_index("vk", contract.spec(3))
    index.load(contract.CORPUS)
    index.wait_ready(len(contract.CORPUS), 30)
    with pytest.raises(
        BackendUnavailable, match=r"^vector search is not supported on valkey \S+ \(no vector engine\)$"
    ):
        index.vector(np.ones(3), Filters(), 3)
    assert valkey_backend.info().vector_engine is None
    assert [h.id for h in index.lexical(["kafka"], Filters(Eq("owner", "u")), 5)] == ["c"]
    index.drop()


def test_info_names_the_engine(core: RedisCoreBackend) -> None:
    info = core.info()
    flavour = core.name.removesuffix("-core")
    assert info.engine == f"{flavour} core"
    assert info.server_version.startswith(f"{flavour} ")
    assert "ln(1+(N-n+0.5)/(n+0.5))" in info.lexical_scorer


def test_queries_leave_no_keys_and_drop_removes_all(core: RedisCoreBackend) -> None:
    index = core.create_index("dr", contract.spec())
    index.load(contract.CORPUS)
    before = set(_keys(core, "dr"))
    index.lexical(
        ["postgres", "kafka"], Filters(Eq("owner", "u"), AnyOf("tags", frozenset({"domain:a", "domain:b"}))), 1
    )
    assert set(_keys(core, "dr")) == before
    index.drop()
    assert _keys(core, "dr") == []


def test_ties_break_by_id_beyond_the_limit(core: RedisCoreBackend) -> None:
    """Equal scores past the limit are still ordered by id: the top is widened to the whole tie."""
    docs = [contract.doc(f"d{i:02d}", "same words", "") for i in range(40)]
    index = core.create_index("ti", contract.spec())
    index.load(list(reversed(docs)))
    assert [h.id for h in index.lexical(["same"], Filters(), 3)] == ["d00", "d01", "d02"]
    index.drop()


def test_load_refuses_ids_already_indexed(core: RedisCoreBackend) -> None:
    index = core.create_index("ld", contract.spec())
    index.load(contract.CORPUS[:2])
    with pytest.raises(ValueError, match="upsert"):
        index.load(contract.CORPUS[1:3])
    index.drop()


def test_unreachable_server_is_one_line() -> None:
    with pytest.raises(BackendUnavailable) as raised:
        RedisCoreBackend.connect("redis://user:secret@127.0.0.1:1/0", "redis-core")
    message = str(raised.value)
    assert "\n" not in message
    assert "secret" not in message
    assert message.startswith("redis-core at redis://user:***@127.0.0.1:1/0")


def test_vsim_filter_expression() -> None:
    filters = Filters(
        Eq("owner", "u1"),
        Eq("live", True),
        AnyOf("kind", frozenset({"entity", "fact"})),
        AnyOf("tags", frozenset({"domain:b", 'we"ird'})),
        Eq("tags", "domain:a"),
        Present("kind"),
        Absent("owner"),
    )
    assert vsim_filter(filters, contract.spec()) == (
        '.owner == "u1" and .live == 1 and .kind in ["entity", "fact"]'
        ' and ("domain:b" in .tags or "~776522697264" in .tags) and ("domain:a" in .tags)'
        ' and "kind" in ._present and not ("owner" in ._present)'
    )
    assert vsim_filter(Filters(), contract.spec()) is None


def test_vsim_attributes_list_what_is_present() -> None:
    stored = vsim_attributes(contract.doc("a", "x", "", owner='we"ird', tags=("b", "a"), kind=None, live=False))
    assert stored == {"_present": ["live", "owner", "tags"], "owner": "~776522697264", "tags": ["a", "b"], "live": 0}


# -- the built-in suite end to end ------------------------------------------------------------


def _failures(results) -> list[str]:
    return [f"{r.mode} {r.item_id}: {'; '.join(r.reasons)}" for r in results if not r.passed]


def test_builtin_suite_bm25(core: RedisCoreBackend) -> None:
    results = execute(Plan([load_suite(BUILTIN)], [Mode.BM25]), core, None)
    assert results
    assert _failures(results) == []


@pytest.mark.parametrize("engine", ["redis_backend", "query_engine"])
def test_builtin_suite_vector_and_hybrid_match_embedded(engine: str, request: pytest.FixtureRequest) -> None:
    """Exact cosine on both sides (Vector Sets' TRUTH scan, the Query Engine's FLAT index), so
    vector and hybrid retrieve what the embedded backend does."""
    plan = Plan([load_suite(BUILTIN)], [Mode.VECTOR, Mode.HYBRID])
    embedder = suite_embedder("all-MiniLM-L6-v2")
    got = execute(plan, request.getfixturevalue(engine), embedder)
    want = execute(plan, EmbeddedBackend(), embedder)
    assert [r.error for r in got] == [None] * len(got)

    def retrieved(result) -> list[str]:
        return [r["id"] for r in result.retrieved["relevant"]]

    differences = [
        (r.mode, r.item_id, retrieved(w), retrieved(r))
        for r, w in zip(got, want, strict=True)
        if set(retrieved(r)) != set(retrieved(w))
    ]
    assert differences == []


# -- the Query Engine on a live server ---------------------------------------------------------


def test_query_engine_info_says_its_b(query_engine: RedisSearchBackend) -> None:
    """The scorer line names BM25STD per field and the b the server's RediSearch uses."""
    info = query_engine.info()
    assert info.engine == "redis query engine"
    assert f"b={query_engine.bm25_b}" in info.lexical_scorer
    assert "FLAT (exact)" in (info.vector_engine or "")
    assert bool(info.notes) == (query_engine.bm25_b != 0.75)


def test_query_engine_keeps_a_hash_per_non_empty_field(query_engine: RedisSearchBackend) -> None:
    """A field's index sees only the documents having that field (Lucene's N and average length):
    an empty field has no hash, and an upsert that empties one removes it."""
    docs = [contract.doc("a", "pg", "postgres"), contract.doc("b", "redis", "")]
    index = query_engine.create_index("qf", contract.spec())
    index.load(docs)
    index.wait_ready(2, 30)
    client = query_engine._client
    assert set(client.scan_iter(match="h:{qf}:f:aliases:*")) == {"h:{qf}:f:aliases:a"}
    index.upsert([contract.doc("a", "pg", "")])
    assert list(client.scan_iter(match="h:{qf}:f:aliases:*")) == []
    assert [h.id for h in index.lexical(["postgres"], Filters(), 5)] == []
    index.drop()
    assert list(client.scan_iter(match="h:{qf}:*")) == []
    assert not [n for n in client.execute_command("FT._LIST") if n.startswith("h:{qf}:")]


def test_query_engine_reads_every_match_past_the_first_page(
    query_engine: RedisSearchBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every document containing a term counts in the sum, however many there are."""
    monkeypatch.setattr(redis_search, "_PAGE", 3)
    docs = [contract.doc(f"d{i:02d}", "same words" if i % 2 else "same", "words") for i in range(10)]
    index = query_engine.create_index("qp", contract.spec())
    index.load(docs)
    index.wait_ready(len(docs), 30)
    want = contract.reference_lexical(docs, contract.WEIGHTS, ["words"], Filters(), 4, query_engine.bm25_b)
    contract.assert_same_hits(index.lexical(["words"], Filters(), 4), want)
    index.drop()


def test_query_engine_builtin_suite_bm25(query_engine: RedisSearchBackend) -> None:
    results = execute(Plan([load_suite(BUILTIN)], [Mode.BM25]), query_engine, None)
    assert results
    assert _failures(results) == []


def test_query_engine_without_ft_is_refused(redis_backend: RedisCoreBackend, server_url) -> None:
    """Debian's redis has no FT.*: `-b redis` on it says so, in one line, and names the core engine."""
    if redis_search.detect(redis_backend._client):
        pytest.skip("this core server is redis:8, which has the Query Engine")
    with pytest.raises(BackendUnavailable, match=r"no Query Engine .* -b redis-core$"):
        RedisSearchBackend.connect(server_url("redis-core"))


# -- the Query Engine backend, without a server -----------------------------------------------


class _Commands:
    """Just enough of a client for `detect`: COMMAND LIST FILTERBY PATTERN."""

    def __init__(self, names: list[str]):
        self._names = names

    def command_list(self, pattern: str) -> list[str]:
        return [n for n in self._names if n.lower() == pattern.lower()]


def test_detect_needs_ft_search() -> None:
    assert redis_search.detect(_Commands(["FT.SEARCH", "VADD"]))
    assert not redis_search.detect(_Commands(["VADD"]))


def test_b_follows_the_module_version() -> None:
    """RediSearch 8.0 changed BM25STD's b from 0.5 to 0.75 (RediSearch PR #5849)."""
    assert redis_search.bm25_b(21005) == 0.5
    assert redis_search.bm25_b(80000) == 0.75
    assert redis_search.bm25_b(80205) == 0.75


def test_create_commands() -> None:
    spec = IndexSpec({"name": 1.0, "aliases": 2.0}, 384, contract.ATTRIBUTES)
    tags = [
        "_owner", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "INDEXMISSING",
        "_tags", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "INDEXMISSING",
        "_kind", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "INDEXMISSING",
        "_live", "TAG", "INDEXMISSING",
    ]  # fmt: skip
    assert redis_search.field_create_command("i", "h:{ns}:f:aliases:", "aliases", spec) == [
        "FT.CREATE", "i", "ON", "HASH", "PREFIX", 1, "h:{ns}:f:aliases:", "SKIPINITIALSCAN", "STOPWORDS", 0, "SCHEMA",
        "aliases", "TEXT", "NOSTEM", *tags,
    ]  # fmt: skip
    assert redis_search.vector_create_command("v", "h:{ns}:d:", spec) == [
        "FT.CREATE", "v", "ON", "HASH", "PREFIX", 1, "h:{ns}:d:", "SKIPINITIALSCAN", "STOPWORDS", 0, "SCHEMA", *tags,
        "_vec", "VECTOR", "FLAT", 6, "TYPE", "FLOAT32", "DIM", 384, "DISTANCE_METRIC", "COSINE",
    ]  # fmt: skip


def test_admitted_query_holds_the_filters() -> None:
    """Filters are an unscored query of their own (RediSearch 2.10 scores a TAG predicate even at
    `$weight: 0`); the scored queries are one term in one field, nothing else."""
    filters = Filters(
        Eq("owner", "u1"),
        Eq("live", True),
        AnyOf("tags", frozenset({"domain:a", "user:universal"})),
        AnyOf("kind", frozenset({"entity"})),
        Present("kind"),
        Absent("owner"),
    )
    assert redis_search.admitted_query("aliases", ["pg", "postgres"], filters) == (
        r"(@aliases:(pg|postgres)) "
        r"@_owner:{u1} @_live:{1} @_tags:{domain\:a|user\:universal} @_kind:{entity}"
        r" -ismissing(@_kind) ismissing(@_owner)"
    )
    assert redis_search.admitted_query("name", ["pg"], Filters()) == ""
    assert redis_search.admitted_query("name", ["pg"], Filters(AnyOf("tags", frozenset()))) is None
    assert redis_search.term_query("name", "pg") == "@name:(pg)"


def test_search_command() -> None:
    assert redis_search.search_command("i", "@name:(pg)", 10) == [
        "FT.SEARCH", "i", "@name:(pg)", "NOCONTENT", "VERBATIM", "WITHSCORES",
        "SCORER", "BM25STD", "LIMIT", 0, 10, "DIALECT", 2,
    ]  # fmt: skip
    assert redis_search.search_command("i", "@_owner:{u}", 5, scored=False) == [
        "FT.SEARCH", "i", "@_owner:{u}", "NOCONTENT", "VERBATIM", "LIMIT", 0, 5, "DIALECT", 2,
    ]  # fmt: skip


def test_knn_command() -> None:
    blob = np.ones(2, dtype=np.float32).tobytes()
    command = redis_search.knn_command("v", blob, Filters(Eq("owner", "u1"), Eq("live", False)), 5)
    assert command == [
        "FT.SEARCH", "v", "(@_owner:{u1} @_live:{0})=>[KNN $K @_vec $BLOB AS __dist]",
        "PARAMS", 4, "K", 5, "BLOB", blob,
        "SORTBY", "__dist", "ASC", "RETURN", 1, "__dist", "LIMIT", 0, 5, "DIALECT", 2,
    ]  # fmt: skip
    assert redis_search.knn_command("v", blob, Filters(), 500)[2].startswith("*=>[KNN")


def test_parse_keys() -> None:
    assert redis_search.parse_keys([2, "h:{ns}:f:name:a", "h:{ns}:f:name:b"], "h:{ns}:f:name:") == {"a", "b"}


def test_parse_scores() -> None:
    # FT.SEARCH ... NOCONTENT WITHSCORES (RESP2): total, then key and score (17 significant digits).
    reply = [2, "h:{ns}:f:name:doc1", "0.5413533834586466", "h:{ns}:f:name:doc9", "0.12"]
    assert redis_search.parse_scores(reply, "h:{ns}:f:name:") == {"doc1": 0.5413533834586466, "doc9": 0.12}


def test_parse_knn_reply() -> None:
    # FT.SEARCH ... RETURN 1 __dist (RESP2): COSINE distance is 1 - cosine.
    reply = [2, "h:{ns}:d:a", ["__dist", "0.0250000357628"], "h:{ns}:d:b", ["__dist", "1.5"]]
    hits = redis_search.parse_knn_reply(reply, "h:{ns}:d:")
    assert [(h.id, round(h.score, 6)) for h in hits] == [("a", 0.975), ("b", -0.5)]
    assert hits[0].clauses[0].field == "vector"


def test_parse_info() -> None:
    # FT.INFO (RESP2) as in the command reference: numbers as strings in older servers, integers in newer ones.
    old = ["index_name", "idx", "index_options", [], "num_docs", "10", "max_doc_id", "10", "hash_indexing_failures", "0",
           "total_indexing_time", "1.72", "indexing", "0", "percent_indexed", "1"]  # fmt: skip
    assert redis_search.parse_info(old) == redis_search.IndexState(num_docs=10, indexing=False, failures=0)
    new = ["index_name", "idx", "num_docs", 3, "hash_indexing_failures", 1, "indexing", 1, "percent_indexed", "0.5"]
    assert redis_search.parse_info(new) == redis_search.IndexState(num_docs=3, indexing=True, failures=1)


def test_hashes_hold_present_attributes_and_non_empty_fields() -> None:
    index = redis_search.RedisSearchIndex(None, "ns", contract.spec())  # type: ignore[arg-type]  # no server needed
    hashes = index._hashes(contract.doc("a", "pg  sql", "", owner=None, tags=("b", "a"), live=False))
    tags = {"_tags": "a,b", "_kind": "entity", "_live": 0}
    assert hashes == [("h:{ns}:d:a", {"__doc": 1, **tags}), ("h:{ns}:f:name:a", {"name": "pg sql", **tags})]
    with pytest.raises(ValueError, match="separator"):
        index._hashes(contract.doc("b", "pg", "", tags=("a,b",)))


def test_hash_attributes_read_back_as_written() -> None:
    """What `attributes` decodes from the hash fields HMGET returns (strings) is what was written."""
    index = redis_search.RedisSearchIndex(None, "ns", contract.spec())  # type: ignore[arg-type]  # no server needed
    for doc in [*contract.CORPUS, contract.doc("z", "x", "", owner=None, tags=("b:1", "a"), live=False, kind=None)]:
        record = index._hashes(doc)[0][1]
        stored = {a: str(record[f"_{a}"]) for a in contract.ATTRIBUTES if f"_{a}" in record}
        assert {a: index._value(a, v) for a, v in stored.items()} == dict(doc.attributes)


# -- a signal between a command and its reply ------------------------------------------------


def _interrupted_before_the_reply(*_args: object, **_options: object) -> None:
    raise KeyboardInterrupt  # the command is sent, its reply not read: a signal's worst moment


def test_a_command_interrupted_before_its_reply_leaves_no_reply_for_the_next(
    core: RedisCoreBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """redis-py gave the connection back with the reply still to come, and the next command read
    it: after Ctrl-C the clean-up parsed a search's reply, and that error took Ctrl-C's place."""
    client = core._client
    client.connection_pool.disconnect()  # whatever an earlier test left: each starts on fresh connections
    with monkeypatch.context() as patched:
        patched.setattr(redis.Redis, "parse_response", _interrupted_before_the_reply)
        with pytest.raises(KeyboardInterrupt):
            client.execute_command("BLPOP", "harness-test:never", "0.3")  # replies nil in 0.3 s
    assert client.execute_command("ECHO", "next") == "next"


def test_a_pipeline_interrupted_before_its_replies_leaves_none_for_the_next(
    core: RedisCoreBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = core._client
    client.connection_pool.disconnect()
    with monkeypatch.context() as patched, client.pipeline(transaction=False) as pipe:
        patched.setattr(redis.Redis, "parse_response", _interrupted_before_the_reply)
        pipe.execute_command("BLPOP", "harness-test:never", "0.3")
        pipe.execute_command("ECHO", "stale")
        with pytest.raises(KeyboardInterrupt):
            pipe.execute()
    assert client.execute_command("ECHO", "next") == "next"
