"""Redis and Valkey backends: the core engine against the protocol contract (tests/backends/contract.py)
and the built-in suite on live servers; the Query Engine backend's commands and reply parsing
against reply shapes taken from the Redis documentation and RediSearch's own tests."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import redis

from harness.backends import redis_search
from harness.backends.base import Absent, AnyOf, Eq, Filters, IndexSpec, Present
from harness.backends.embedded import EmbeddedBackend
from harness.backends.redis_core import RedisCoreBackend, vsim_attributes, vsim_filter
from harness.errors import BackendUnavailable
from harness.evaluation.embedders import suite_embedder
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.runner import execute
from harness.pipeline import Mode
from harness.suites import BUILTIN, load_suite
from tests.backends import contract


def _connect(url: str, name: str) -> Iterator[RedisCoreBackend]:
    backend = RedisCoreBackend.connect(url, name)  # the core engine, even where FT.* exists
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def redis_backend(server_url) -> Iterator[RedisCoreBackend]:
    yield from _connect(server_url("redis"), "redis")


@pytest.fixture(scope="module")
def valkey_backend(server_url) -> Iterator[RedisCoreBackend]:
    yield from _connect(server_url("valkey"), "valkey")


@pytest.fixture(scope="module", params=["redis", "valkey"])
def core(request: pytest.FixtureRequest) -> RedisCoreBackend:
    return request.getfixturevalue(f"{request.param}_backend")


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
    assert info.engine == f"{core.name} core"
    assert info.server_version.startswith(f"{core.name} ")
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
        RedisCoreBackend.connect("redis://user:secret@127.0.0.1:1/0", "redis")
    message = str(raised.value)
    assert "\n" not in message
    assert "secret" not in message
    assert message.startswith("redis at redis://user:***@127.0.0.1:1/0")


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


def test_builtin_suite_vector_and_hybrid_match_embedded(redis_backend: RedisCoreBackend) -> None:
    """Exact cosine on both sides, so vector and hybrid retrieve what the embedded backend does."""
    plan = Plan([load_suite(BUILTIN)], [Mode.VECTOR, Mode.HYBRID])
    embedder = suite_embedder("all-MiniLM-L6-v2")
    got = execute(plan, redis_backend, embedder)
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


def test_create_command() -> None:
    spec = IndexSpec({"name": 1.0, "aliases": 2.0}, 384, contract.ATTRIBUTES)
    command = redis_search.create_command("h_ns", "h:{ns}:d:", spec)
    assert command == [
        "FT.CREATE", "h_ns", "ON", "HASH", "PREFIX", 1, "h:{ns}:d:", "STOPWORDS", 0, "SCHEMA",
        "name", "TEXT", "NOSTEM", "WEIGHT", 1.0,
        "aliases", "TEXT", "NOSTEM", "WEIGHT", 2.0,
        "_owner", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "INDEXMISSING",
        "_tags", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "INDEXMISSING",
        "_kind", "TAG", "SEPARATOR", ",", "CASESENSITIVE", "INDEXMISSING",
        "_live", "TAG", "INDEXMISSING",
        "_vec", "VECTOR", "HNSW", 6, "TYPE", "FLOAT32", "DIM", 384, "DISTANCE_METRIC", "COSINE",
    ]  # fmt: skip


def test_lexical_query_weighs_filters_zero() -> None:
    filters = Filters(
        Eq("owner", "u1"),
        Eq("live", True),
        AnyOf("tags", frozenset({"domain:a", "user:universal"})),
        AnyOf("kind", frozenset({"entity"})),
        Present("kind"),
        Absent("owner"),
    )
    query = redis_search.lexical_query(["name", "aliases"], ["pg", "postgres"], filters)
    assert query == (
        r"(@name|aliases:(pg|postgres)) "
        r"((@_owner:{u1} @_live:{1} @_tags:{domain\:a|user\:universal} @_kind:{entity}"
        r" -ismissing(@_kind) ismissing(@_owner)) => { $weight: 0.0; })"
    )
    assert redis_search.lexical_query(["name"], ["pg"], Filters()) == "(@name:(pg))"
    assert redis_search.lexical_query(["name"], ["pg"], Filters(AnyOf("tags", frozenset()))) is None


def test_search_command() -> None:
    assert redis_search.search_command("h_ns", "(@name:(pg))", 10) == [
        "FT.SEARCH", "h_ns", "(@name:(pg))", "NOCONTENT", "VERBATIM", "WITHSCORES", "EXPLAINSCORE",
        "SCORER", "BM25STD", "LIMIT", 0, 10, "DIALECT", 2,
    ]  # fmt: skip


def test_knn_command() -> None:
    blob = np.ones(2, dtype=np.float32).tobytes()
    command = redis_search.knn_command("h_ns", blob, Filters(Eq("owner", "u1"), Eq("live", False)), 5)
    assert command == [
        "FT.SEARCH", "h_ns", "(@_owner:{u1} @_live:{0})=>[KNN $K @_vec $BLOB EF_RUNTIME $EF AS __dist]",
        "PARAMS", 6, "K", 5, "BLOB", blob, "EF", 100,
        "SORTBY", "__dist", "ASC", "RETURN", 1, "__dist", "LIMIT", 0, 5, "DIALECT", 2,
    ]  # fmt: skip
    assert redis_search.knn_command("h_ns", blob, Filters(), 500)[2].startswith("*=>[KNN")


# RediSearch tests/pytests/test_scorers.py, testBM25STDScorerExplanation: the explanation of doc1 for
# `hello world` over `title TEXT WEIGHT 10` (hence F 10.00), then for a query with nested weights.
_HELLO = (
    "hello: (0.27 = Weight 1.00 * IDF 0.13 * (F 10.00 * (k1 1.2 + 1)) /"
    " (F 10.00 + k1 1.2 * (1 - b 0.75 + b 0.75 * Doc Len 23 / Average Doc Len 34.33)))"
)
_WORLD = (
    "world: (0.27 = Weight 1.00 * IDF 0.13 * (F 10.00 * (k1 1.2 + 1)) /"
    " (F 10.00 + k1 1.2 * (1 - b 0.75 + b 0.75 * Doc Len 23 / Average Doc Len 34.33)))"
)
_EXPLAINED = [
    "Final BM25 : words BM25 0.54 * document score 1.00",
    [["(Weight 1.00 * children BM25 0.54)", [_HELLO, _WORLD]]],
]
_WEIGHTED = [
    "Final BM25 : words BM25 0.12 * document score 1.00",
    [[
        "(Weight 0.30 * children BM25 0.40)",
        [
            "hello: (0.13 = Weight 0.50 * IDF 0.13 * (F 10.00 * (k1 1.2 + 1)) /"
            " (F 10.00 + k1 1.2 * (1 - b 0.75 + b 0.75 * Doc Len 23 / Average Doc Len 34.33)))",
            _WORLD,
        ],
    ]],
]  # fmt: skip
# Same file, testOptionalAndWildcardScoring: a single-term query has no aggregate level.
_SINGLE = [
    "Final BM25 : words BM25 0.63 * document score 1.00",
    [
        "words: (0.63 = Weight 1.00 * IDF 0.69 * (F 1.00 * (k1 1.2 + 1)) /"
        " (F 1.00 + k1 1.2 * (1 - b 0.75 + b 0.75 * Doc Len 5 / Average Doc Len 4.00)))"
    ],
]


def test_explain_shares_follow_the_documented_tree() -> None:
    """Shares are recomputed from the printed (2-decimal) factors: close to each leaf's printed value."""
    assert redis_search.explain_shares(_EXPLAINED) == pytest.approx({"hello": 0.27, "world": 0.27}, abs=0.01)
    shares = redis_search.explain_shares(_WEIGHTED)
    assert shares["hello"] / shares["world"] == pytest.approx(0.5)
    assert shares["world"] == pytest.approx(0.30 * 0.27, abs=0.01)
    assert redis_search.explain_shares(_SINGLE) == pytest.approx({"words": 0.63}, abs=0.01)


def test_explain_drops_zero_weight_groups() -> None:
    """Filters are wrapped in a `$weight: 0.0` group; its header has the documented aggregate form."""
    tags = ["(Weight 0.00 * children BM25 0.31)", [_HELLO.replace("hello", "u1")]]
    filtered = [_EXPLAINED[0], [["(Weight 1.00 * children BM25 0.54)", [_EXPLAINED[1][0], tags]]]]
    assert set(redis_search.explain_shares(filtered)) == {"hello", "world"}


def test_parse_search_reply() -> None:
    # FT.SEARCH ... NOCONTENT WITHSCORES EXPLAINSCORE (RESP2): total, then id and [score, explanation].
    reply = [2, "h:{ns}:d:doc1", ["0.5413533834586466", _EXPLAINED], "h:{ns}:d:doc9", ["0.12", _WEIGHTED]]
    hits = redis_search.parse_search_reply(reply, "h:{ns}:d:", "name|aliases")
    assert [h.id for h in hits] == ["doc1", "doc9"]
    assert hits[0].score == pytest.approx(0.5413533834586466)
    assert [(c.field, c.term) for c in hits[0].clauses] == [("name|aliases", "hello"), ("name|aliases", "world")]
    assert sum(c.score for c in hits[0].clauses) == pytest.approx(hits[0].score, rel=1e-12)
    assert hits[1].clauses[0].score == pytest.approx(0.04)


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


def test_hash_writes_present_attributes_only() -> None:
    index = redis_search.RedisSearchIndex(None, "ns", contract.spec())  # type: ignore[arg-type]  # no server needed
    record = index._hash(contract.doc("a", "pg", "", owner=None, tags=("b", "a"), live=False))
    assert record == {"name": "pg", "aliases": "", "_tags": "a,b", "_kind": "entity", "_live": 0}
    with pytest.raises(ValueError, match="separator"):
        index._hash(contract.doc("b", "pg", "", tags=("a,b",)))


def test_hash_attributes_read_back_as_written() -> None:
    """What `attributes` decodes from the hash fields HMGET returns (strings) is what was written."""
    index = redis_search.RedisSearchIndex(None, "ns", contract.spec())  # type: ignore[arg-type]  # no server needed
    for doc in [*contract.CORPUS, contract.doc("z", "x", "", owner=None, tags=("b:1", "a"), live=False, kind=None)]:
        record = index._hash(doc)
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
