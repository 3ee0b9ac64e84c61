"""The Atlas backend: query building and result parsing here, the protocol contract on a server.

Atlas Local (`mongodb/mongodb-atlas-local`) cannot be pulled on every machine, so everything that
needs no server is a pure function in `atlas_queries` and is tested first, against the shapes
MongoDB documents. The server half runs with `pytest --backend atlas`, where the Atlas Local image can be pulled.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from harness.backends import atlas_queries as q
from harness.backends.atlas import AtlasBackend
from harness.backends.base import Absent, AnyOf, AttributeType, Clause, Eq, Filters, Hit, IndexSpec, Present, ranked
from harness.errors import BackendUnavailable
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.runner import execute
from harness.pipeline import Mode
from harness.suites import BUILTIN, load_suite
from tests.backends import contract

K1, B = 1.2000000476837158, 0.75  # Lucene's float k1 as Atlas reports it


def lucene_bm25(tf: int, df: int, n_docs: int, length: int, avg_length: float) -> float:
    """Lucene BM25Similarity as Atlas documents it: idf = ln(1 + (N-n+0.5)/(n+0.5)), no (k1+1)."""
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + K1 * (1 - B + B * length / avg_length))


# -- score details, built in the documented shape ------------------------------------------------


def leaf(value: float, description: str) -> dict[str, Any]:
    return {"value": value, "description": description, "details": []}


def term_node(path: str, term: str, *, n: int, big_n: int, dl: int, avgdl: float, boost: float = 1.0) -> dict[str, Any]:
    """One `$type:string/<path>:<term> [BM25Similarity]` explanation; a `boost` detail only when not 1."""
    idf = math.log(1 + (big_n - n + 0.5) / (n + 0.5))
    tf = 1.0 / (1.0 + K1 * (1 - B + B * dl / avgdl))
    value = boost * idf * tf
    factors = [leaf(boost, "boost")] if boost != 1.0 else []
    factors += [
        {
            "value": idf,
            "description": "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
            "details": [
                leaf(n, "n, number of documents containing term"),
                leaf(big_n, "N, total number of documents with field"),
            ],
        },
        {
            "value": tf,
            "description": "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
            "details": [
                leaf(1.0, "freq, occurrences of term within document"),
                leaf(K1, "k1, term saturation parameter"),
                leaf(B, "b, length normalization parameter"),
                leaf(dl, "dl, length of field"),
                leaf(avgdl, "avgdl, average length of field"),
            ],
        },
    ]
    score = {"value": value, "description": "score(freq=1.0), computed as boost * idf * tf from:", "details": factors}
    description = f"$type:string/{path}:{term} [BM25Similarity], result of:"
    return {"value": value, "description": description, "details": [score]}


def sum_of(*nodes: dict[str, Any]) -> dict[str, Any]:
    return {"value": sum(n["value"] for n in nodes), "description": "sum of:", "details": list(nodes)}


FILTER_NODE = {  # Lucene's wording for a non-scoring compound.filter clause
    "value": 0.0,
    "description": "match on required clause, product of:",
    "details": [leaf(0.0, "# clause"), leaf(1.0, "ConstantScore($type:token/user:u)")],
}

DEV_TO_EXAMPLE = sum_of(  # Atlas's published output for text: {query: ["🍎", "🍏"], path: "description"}
    {
        "value": 1.0242118835449219,
        "description": "$type:string/description:🍏 [BM25Similarity], result of:",
        "details": [
            {
                "value": 1.0242118835449219,
                "description": "score(freq=1.0), computed as boost * idf * tf from:",
                "details": [
                    {
                        "value": 1.8971199989318848,
                        "description": "idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:",
                        "details": [
                            leaf(1, "n, number of documents containing term"),
                            leaf(9, "N, total number of documents with field"),
                        ],
                    },
                    {
                        "value": 0.5398772954940796,
                        "description": "tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:",
                        "details": [
                            leaf(1, "freq, occurrences of term within document"),
                            leaf(K1, "k1, term saturation parameter"),
                            leaf(0.75, "b, length normalization parameter"),
                            leaf(3, "dl, length of field"),
                            leaf(4.888888835906982, "avgdl, average length of field"),
                        ],
                    },
                ],
            }
        ],
    }
)


def test_lucene_reference_reproduces_the_published_atlas_score() -> None:
    assert math.isclose(lucene_bm25(1, 1, 9, 3, 44 / 9), 1.0242118835449219, rel_tol=1e-6)


def test_published_example_parses_to_its_one_clause() -> None:
    assert q.score_clauses(DEV_TO_EXAMPLE, {"description"}) == [Clause("description", "🍏", 1.0242118835449219)]


def test_two_terms_in_two_fields_with_boosts_and_a_filter() -> None:
    name_postgres = term_node("name", "postgres", n=1, big_n=5, dl=2, avgdl=1.8)
    alias_postgres = term_node("aliases", "postgres", n=1, big_n=5, dl=3, avgdl=1.8, boost=2.0)
    alias_pg = term_node("aliases", "pg", n=1, big_n=5, dl=3, avgdl=1.8, boost=2.0)
    tree = sum_of(sum_of(name_postgres), sum_of(alias_postgres), sum_of(alias_pg), FILTER_NODE)
    clauses = q.score_clauses(tree, contract.WEIGHTS)
    assert [(c.field, c.term) for c in clauses] == [("name", "postgres"), ("aliases", "postgres"), ("aliases", "pg")]
    assert [c.score for c in clauses] == [name_postgres["value"], alias_postgres["value"], alias_pg["value"]]
    assert math.isclose(alias_pg["value"], 2.0 * lucene_bm25(1, 1, 5, 3, 1.8), rel_tol=1e-12)


def test_a_boost_wrapped_around_a_term_counts_in_its_clause() -> None:
    inner = term_node("aliases", "kafka", n=1, big_n=7, dl=1, avgdl=1.4)
    wrapped = {"value": 2.0 * inner["value"], "description": "product of:", "details": [inner, leaf(2.0, "boost")]}
    tree = sum_of(wrapped, sum_of(term_node("name", "kafka", n=2, big_n=7, dl=1, avgdl=1.6)))
    assert q.score_clauses(tree, contract.WEIGHTS)[0] == Clause("aliases", "kafka", 2.0 * inner["value"])


def test_weight_wording_of_plain_lucene_is_understood() -> None:
    node = term_node("name", "redis", n=1, big_n=5, dl=2, avgdl=2.0)
    node["description"] = "weight($type:string/name:redis in 3) [BM25Similarity], result of:"
    assert q.score_clauses(node, contract.WEIGHTS) == [Clause("name", "redis", node["value"])]


def test_lexical_hit_scores_the_sum_of_its_clauses() -> None:
    tree = sum_of(
        sum_of(term_node("name", "postgres", n=1, big_n=5, dl=2, avgdl=1.8)),
        sum_of(term_node("aliases", "pg", n=1, big_n=5, dl=3, avgdl=1.8, boost=2.0)),
        FILTER_NODE,
    )
    float32_score = float(np.float32(tree["value"]))
    hit = q.lexical_hit({"_id": "a", "score": float32_score, "scoreDetails": tree}, contract.WEIGHTS)
    assert hit.id == "a"
    assert len(hit.clauses) == 2
    assert hit.score == math.fsum(c.score for c in hit.clauses)
    assert math.isclose(hit.score, 2.2 * float32_score, rel_tol=1e-6)


def test_lexical_hit_scores_as_every_other_engine() -> None:
    """Explanations of the contract corpus, as Lucene computes them (float32 k1, no (k1+1)),
    read back to the reference scores every engine reports, to 1e-6."""
    docs, terms = contract.CORPUS, ["postgres", "pg", "store"]
    want = contract.reference_lexical(docs, contract.WEIGHTS, terms, Filters(), 10)
    for expected in want:
        (doc,) = [d for d in docs if d.id == expected.id]
        nodes = []
        for clause in expected.clauses:
            big_n, n, avgdl = contract.field_stats(docs, clause.field, clause.term)
            dl = len(doc.fields[clause.field].split())
            boost = contract.WEIGHTS[clause.field]
            nodes.append(
                sum_of(term_node(clause.field, clause.term, n=n, big_n=big_n, dl=dl, avgdl=avgdl, boost=boost))
            )
        tree = sum_of(*nodes, FILTER_NODE)
        row = {"_id": doc.id, "score": float(np.float32(tree["value"])), "scoreDetails": tree}
        contract.assert_same_hits([q.lexical_hit(row, contract.WEIGHTS)], [expected])


@pytest.mark.parametrize(
    ("details", "score", "message"),
    [
        (sum_of(term_node("content", "x", n=1, big_n=2, dl=1, avgdl=1.0)), None, "field 'content'"),
        (sum_of(term_node("name", "x", n=1, big_n=2, dl=1, avgdl=1.0)), 9.0, "not its searchScore"),
        (sum_of(leaf(1.0, "max of:")), 1.0, "not its searchScore"),
    ],
)
def test_unreadable_score_details_fail_loudly(details, score, message) -> None:
    row = {"_id": "a", "score": details["value"] if score is None else score, "scoreDetails": details}
    with pytest.raises(ValueError, match=message):
        q.lexical_hit(row, contract.WEIGHTS)


def test_vector_search_score_becomes_cosine() -> None:
    assert [q.cosine(s) for s in (1.0, 0.75, 0.5, 0.0)] == [1.0, 0.5, 0.0, -1.0]
    assert q.vector_hit({"_id": "d", "score": 0.75}) == Hit("d", 0.5, (Clause("vector", "cosine", 0.5),))


# -- definitions and pipelines -------------------------------------------------------------------

FILTERS = Filters(
    Eq("owner", "u"),
    AnyOf("tags", frozenset({"user:universal", "domain:a"})),
    AnyOf("kind", frozenset({"entity"})),
    Eq("live", True),
    Eq("tags", "domain:b"),
    Present("kind"),
    Absent("owner"),
)
SPEC = contract.spec()


def test_search_index_maps_fields_as_whitespace_strings_and_filters_as_tokens() -> None:
    string = {"type": "string", "analyzer": "lucene.whitespace"}
    token = {"type": "token"}
    assert q.search_index_model("lexical_1", SPEC) == {
        "name": "lexical_1",
        "type": "search",
        "definition": {
            "mappings": {
                "dynamic": False,
                "fields": {
                    "name": string,
                    "aliases": string,
                    "owner": token,
                    "tags": token,
                    "kind": token,
                    "live": {"type": "boolean"},
                    "_present": token,
                    "_absent": token,
                    "revision": token,
                },
            }
        },
    }


def test_vector_index_is_cosine_with_every_filter_field() -> None:
    assert q.vector_index_model("vector_1", contract.spec(384)) == {
        "name": "vector_1",
        "type": "vectorSearch",
        "definition": {
            "fields": [
                {"type": "vector", "path": "vector", "numDimensions": 384, "similarity": "cosine"},
                {"type": "filter", "path": "owner"},
                {"type": "filter", "path": "tags"},
                {"type": "filter", "path": "kind"},
                {"type": "filter", "path": "live"},
                {"type": "filter", "path": "_present"},
                {"type": "filter", "path": "_absent"},
                {"type": "filter", "path": "revision"},
            ]
        },
    }


def test_lexical_pipeline_is_one_boosted_text_clause_per_field_and_distinct_term() -> None:
    def text(term: str, field: str, weight: float) -> dict[str, Any]:
        return {"text": {"query": term, "path": field, "score": {"boost": {"value": weight}}}}

    pipeline = q.lexical_pipeline("lexical_1", ["postgres", "pg", "postgres"], SPEC, FILTERS, 42)
    assert pipeline == [
        {
            "$search": {
                "index": "lexical_1",
                "compound": {
                    "should": [
                        text("postgres", "name", 1.0),
                        text("pg", "name", 1.0),
                        text("postgres", "aliases", 2.0),
                        text("pg", "aliases", 2.0),
                    ],
                    "minimumShouldMatch": 1,
                    "filter": [
                        {"equals": {"path": "owner", "value": "u"}},
                        {"in": {"path": "tags", "value": ["domain:a", "user:universal"]}},
                        {"in": {"path": "kind", "value": ["entity"]}},
                        {"equals": {"path": "live", "value": True}},
                        {"in": {"path": "tags", "value": ["domain:b"]}},
                        {"in": {"path": "_present", "value": ["kind"]}},
                        {"in": {"path": "_absent", "value": ["owner"]}},
                    ],
                },
                "scoreDetails": True,
            }
        },
        {"$limit": 42},
        {"$project": {"_id": 1, "score": {"$meta": "searchScore"}, "scoreDetails": {"$meta": "searchScoreDetails"}}},
    ]


def test_unfiltered_lexical_pipeline_has_no_filter_clause() -> None:
    (search, *_) = q.lexical_pipeline("lexical_1", ["kafka"], IndexSpec({"name": 1.0}), Filters(), 5)
    assert "filter" not in search["$search"]["compound"]


def test_vector_pipeline_is_exact_with_mql_prefilter() -> None:
    pipeline = q.vector_pipeline("vector_1", np.array([3.0, 4.0, 0.0]), SPEC, FILTERS, 7)
    stage = pipeline[0]["$vectorSearch"]
    assert stage.pop("queryVector") == pytest.approx([0.6, 0.8, 0.0])
    assert stage == {
        "index": "vector_1",
        "path": "vector",
        "exact": True,
        "limit": 7,
        "filter": {
            "$and": [
                {"owner": {"$eq": "u"}},
                {"tags": {"$in": ["domain:a", "user:universal"]}},
                {"kind": {"$in": ["entity"]}},
                {"live": {"$eq": True}},
                {"tags": {"$in": ["domain:b"]}},
                {"_present": {"$in": ["kind"]}},
                {"_absent": {"$in": ["owner"]}},
            ]
        },
    }
    assert pipeline[1] == {"$project": {"_id": 1, "score": {"$meta": "vectorSearchScore"}}}
    unfiltered = q.vector_pipeline("vector_1", np.array([1.0, 0.0, 0.0]), SPEC, Filters(), 7)
    assert "filter" not in unfiltered[0]["$vectorSearch"]


def test_visibility_pipelines_match_inside_the_indexes() -> None:
    assert q.count_pipeline("lexical_1") == [
        {"$searchMeta": {"index": "lexical_1", "exists": {"path": "revision"}, "count": {"type": "total"}}}
    ]
    assert q.vector_count_pipeline("vector_1", 3, 5)[0]["$vectorSearch"] == {
        "index": "vector_1",
        "path": "vector",
        "queryVector": [1.0, 0.0, 0.0],
        "exact": True,
        "limit": 6,
    }
    revision = {"$search": {"index": "lexical_1", "equals": {"path": "revision", "value": "r1"}}}
    assert q.revision_pipeline("lexical_1", "r1")[0] == revision
    vector_revision = q.vector_revision_pipeline("vector_1", [0.0, 1.0], "r1")[0]["$vectorSearch"]
    assert vector_revision["filter"] == {"revision": {"$eq": "r1"}}
    assert vector_revision["exact"] is True


def test_stored_document_keeps_analysed_text_filters_and_a_unit_vector() -> None:
    doc = contract.doc("a", "postgres database", "pg", kind=None, tags=("b", "a"), vector=[3, 0, 4])
    stored = q.stored_document(doc, contract.spec(3), "r1")
    assert stored.pop("vector") == pytest.approx([0.6, 0.0, 0.8])
    assert stored == {
        "_id": "a",
        "owner": "u",
        "tags": ["a", "b"],
        "live": True,
        "_present": ["live", "owner", "tags"],
        "_absent": ["kind"],
        "revision": "r1",
        "name": "postgres database",
        "aliases": "pg",
    }
    with pytest.raises(ValueError, match="3 dimensions"):
        q.stored_document(contract.doc("b", "x", "y", vector=[1, 0]), contract.spec(3), "r1")
    with pytest.raises(ValueError, match="3 dimensions"):
        q.stored_document(contract.doc("b", "x", "y"), contract.spec(3), "r1")


@pytest.mark.parametrize(
    ("fields", "attributes", "message"),
    [
        ({"revision": 1.0}, {}, "reserved"),
        ({"a.b": 1.0}, {}, "not a plain"),
        ({"name": 0.0}, {}, "positive"),
        ({"name": 1.0}, {"name": AttributeType.KEYWORD}, "taken"),
        ({"name": 1.0}, {"vector": AttributeType.BOOLEAN}, "taken"),
    ],
)
def test_spec_rejects_fields_atlas_cannot_hold(fields, attributes, message) -> None:
    with pytest.raises(ValueError, match=message):
        q.check_spec(IndexSpec(fields, attributes=attributes))


# -- readiness -----------------------------------------------------------------------------------


def test_queryable_counts_as_ready_without_status_ready() -> None:
    listed = [{"name": "lexical_1", "status": "BUILDING", "queryable": True}, {"name": "vector_1", "queryable": True}]
    assert q.unready_indexes(listed, ["lexical_1", "vector_1"]) is None


def test_unlisted_or_unqueryable_indexes_are_named() -> None:
    assert q.unready_indexes([], ["lexical_1"]) == "index lexical_1 not listed yet"
    listed = [{"name": "lexical_1", "status": "PENDING", "queryable": False}, {"name": "other", "status": "FAILED"}]
    assert q.unready_indexes(listed, ["lexical_1"]) == "index lexical_1 PENDING, not queryable"


def test_failed_index_raises_with_its_detail() -> None:
    listed = [{"name": "vector_1", "status": "FAILED", "queryable": False, "message": "numDimensions too large"}]
    with pytest.raises(BackendUnavailable, match="vector_1 FAILED: numDimensions too large"):
        q.unready_indexes(listed, ["vector_1"])


def test_every_index_must_hold_every_document() -> None:
    assert q.missing_documents({"lexical_1": 5, "vector_1": 5}, 5) is None
    assert q.missing_documents({"lexical_1": 5, "vector_1": 3}, 5) == "index vector_1 holds 3 of 5 documents"


# -- connecting without a server -----------------------------------------------------------------


def test_unreachable_server_is_one_line_without_the_password() -> None:
    with pytest.raises(BackendUnavailable) as raised:
        AtlasBackend.connect("mongodb://harness:secret@127.0.0.1:1/?directConnection=true", connect_timeout=0.2)
    message = str(raised.value)
    assert message.startswith("atlas: cannot reach mongodb://harness:***@127.0.0.1:1/")
    assert "secret" not in message
    assert "\n" not in message


def test_missing_pymongo_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pymongo", None)
    with pytest.raises(BackendUnavailable, match=r"memory-retrieval-harness\[atlas\]"):
        AtlasBackend.connect("mongodb://127.0.0.1:27017/?directConnection=true")


# -- against Atlas Local -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def backend(server_url) -> Iterator[AtlasBackend]:
    """Atlas Local cannot be pulled on every machine: it runs with `--backend atlas` (GitHub Actions)."""
    atlas = AtlasBackend.connect(server_url("atlas"))
    yield atlas
    atlas.close()


def test_info_names_engine_and_version(backend: AtlasBackend) -> None:
    info = backend.info()
    assert info.engine == "atlas search (lucene bm25) + atlas vector search"
    assert info.server_version.startswith("mongod ")
    assert info.lexical_scorer == q.LEXICAL_SCORER


def test_drop_removes_the_collection(backend: AtlasBackend) -> None:
    index = backend.create_index("cd", contract.spec())
    index.load(contract.CORPUS)
    index.drop()
    assert "cd" not in backend._client["harness"].list_collection_names()


def test_builtin_suite_passes_every_case_in_bm25_mode(backend: AtlasBackend) -> None:
    results = execute(Plan([load_suite(BUILTIN)], [Mode.BM25]), backend, None)
    assert results
    assert [(r.case_id, r.turn, r.error or r.reasons) for r in results if r.error or not r.passed] == []


def test_a_query_past_lucenes_clause_limit_is_split_and_summed_exactly() -> None:
    """Lucene refuses more than 1,024 clauses: 2,000 words over two fields go in batches, each
    returning every match, and a document's clauses from all batches add up to its score."""
    words = [f"w{i}" for i in range(2000)] + ["w0"]
    batches = q.term_batches(words, len(contract.WEIGHTS))
    assert [w for batch in batches for w in batch] == list(dict.fromkeys(words))
    assert len(batches) > 1
    assert all(len(b) * len(contract.WEIGHTS) <= q.MAX_CLAUSES for b in batches)
    pipeline = q.lexical_pipeline("lexical_1", batches[0], SPEC, Filters(), None)
    assert [next(iter(stage)) for stage in pipeline] == ["$search", "$project"]
    terms = ["postgres", "pg", "store", "kafka"]
    want = contract.reference_lexical(contract.CORPUS, contract.WEIGHTS, terms, Filters(), 3)
    per_batch = [
        contract.reference_lexical(contract.CORPUS, contract.WEIGHTS, batch, Filters(), 100)
        for batch in (["postgres", "store"], ["pg", "kafka"])
    ]
    contract.assert_same_hits(ranked(q.merge_batches(per_batch), 3), want)
