"""The pure half of the Atlas backend: index definitions, aggregation pipelines, result parsing.

Kept free of pymongo and of any server so that everything here is unit-tested without Atlas.

Lexical scoring is Lucene's BM25Similarity, one `text` clause per (field, term):
    clause = weight * idf * tf
    idf = ln(1 + (N - n + 0.5) / (n + 0.5))
    tf  = freq / (freq + k1 * (1 - b + b * dl / avgdl)),  k1 = 1.2, b = 0.75
with no (k1 + 1) factor (removed in LUCENE-8563), so a clause is the classic BM25 value / 2.2.
`lexical_hit` multiplies each clause by K1_PLUS_1 = 2.2, so Atlas reports the same scores as every
other engine (the contract in `base.py`); a constant factor changes no ranking.
N, n and avgdl are per field over the whole Lucene index, whatever the filters, but Lucene counts
only documents with at least one token in that field, and counts a deleted or replaced document
until its segment is merged away (see `AtlasIndex.upsert` for how the backend keeps that exact).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from harness.backends.base import (
    BM25_K1,
    Absent,
    AnyOf,
    AttributeType,
    Clause,
    Filters,
    Hit,
    IndexDoc,
    IndexSpec,
    Present,
    unit,
)
from harness.errors import BackendUnavailable

K1_PLUS_1 = BM25_K1 + 1
"""The classic BM25 factor Lucene dropped; restored so Atlas scores equal the other engines'."""
LEXICAL_SCORER = (
    "lucene BM25Similarity per field, k1=1.2 b=0.75, idf=ln(1+(N-n+0.5)/(n+0.5)), "
    "clauses x (k1+1) as the other engines; N and avgdl over documents with a token in the field"
)
VECTOR_PATH = "vector"
REVISION = "revision"
"""A token per write, indexed in both indexes, so a write can be seen to have reached mongot."""
PRESENT, ABSENT = "_present", "_absent"
"""The names of the attributes a document has and lacks: `$vectorSearch` filters have no
`$exists` (and a missing field never matches), so presence is tested as a token like any value."""
RESERVED_FIELDS = frozenset({"_id", VECTOR_PATH, REVISION, PRESENT, ABSENT})

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TOKEN = {"type": "token"}
# Lucene's TermWeight explanation as mongot words it; `weight(... in doc)` is plain Lucene's form.
_TERM_CLAUSE = re.compile(
    r"^(?:weight\()?\$type:string/(?P<path>[^:]+):(?P<term>.+?)(?: in \d+\))? \[BM25Similarity\], result of:$"
)


def check_name(name: str, what: str) -> str:
    """Collection and field names become BSON keys and Lucene field names: keep them plain."""
    if not _NAME.match(name):
        raise ValueError(f"not a plain {what} name: {name!r}")
    return name


def check_spec(spec: IndexSpec) -> IndexSpec:
    """Fields and attributes share the document's top level, beside the backend's own keys."""
    for name in spec.attributes:
        if name in RESERVED_FIELDS or name in spec.fields:
            raise ValueError(f"attribute name {name!r} is taken by a field or by the atlas backend")
    for name, weight in spec.fields.items():
        check_name(name, "field")
        if name in RESERVED_FIELDS:
            raise ValueError(f"field name {name!r} is reserved by the atlas backend")
        if not weight > 0:
            raise ValueError(f"field {name!r}: atlas boosts must be positive, got {weight}")
    return spec


# -- indexes ---------------------------------------------------------------------------------


def search_index_model(name: str, spec: IndexSpec) -> dict[str, Any]:
    """Whitespace analysis only: the harness has already lowercased and tokenised the text."""
    fields: dict[str, Any] = {f: {"type": "string", "analyzer": "lucene.whitespace"} for f in spec.fields}
    fields |= {a: {"type": "boolean"} if t is AttributeType.BOOLEAN else _TOKEN for a, t in spec.attributes.items()}
    fields |= {PRESENT: _TOKEN, ABSENT: _TOKEN, REVISION: _TOKEN}
    return {"name": name, "type": "search", "definition": {"mappings": {"dynamic": False, "fields": fields}}}


def vector_index_model(name: str, spec: IndexSpec) -> dict[str, Any]:
    vector = {"type": "vector", "path": VECTOR_PATH, "numDimensions": spec.dimensions, "similarity": "cosine"}
    filters = [{"type": "filter", "path": path} for path in (*spec.attributes, PRESENT, ABSENT, REVISION)]
    return {"name": name, "type": "vectorSearch", "definition": {"fields": [vector, *filters]}}


def stored_document(doc: IndexDoc, spec: IndexSpec, revision: str) -> dict[str, Any]:
    spec.check_doc(doc)
    stored: dict[str, Any] = {"_id": doc.id}
    stored |= {a: sorted(v) if isinstance(v, frozenset) else v for a, v in doc.attributes.items()}
    stored[PRESENT] = sorted(doc.attributes)
    stored[ABSENT] = sorted(a for a in spec.attributes if a not in doc.attributes)
    stored[REVISION] = revision
    stored |= {name: doc.fields.get(name, "") for name in spec.fields}
    if spec.dimensions:
        if doc.vector is None or doc.vector.shape != (spec.dimensions,):
            got = None if doc.vector is None else doc.vector.shape
            raise ValueError(f"document {doc.id!r}: vector shape {got}, the index has {spec.dimensions} dimensions")
        stored[VECTOR_PATH] = unit(doc.vector).tolist()
    return stored


# -- readiness -------------------------------------------------------------------------------


def unready_indexes(listed: Iterable[Mapping[str, Any]], names: Iterable[str]) -> str | None:
    """What keeps the named indexes from answering queries, or None once all are queryable.

    `queryable` decides, not `status`: Atlas Local can report a queryable index that never says
    READY. A FAILED index raises at once, since waiting cannot help.
    """
    by_name = {index.get("name"): index for index in listed}
    for name in names:
        index = by_name.get(name)
        if index is None:
            return f"index {name} not listed yet"
        status = index.get("status", "no status")
        if status == "FAILED":
            detail = index.get("message") or index.get("statusDetail") or "no detail given"
            raise BackendUnavailable(f"atlas search index {name} FAILED: {detail}")
        if index.get("queryable") is not True:
            return f"index {name} {status}, not queryable"
    return None


def missing_documents(counts: Mapping[str, int], expected: int) -> str | None:
    """mongot indexes asynchronously: an index is ready only once it holds every document."""
    behind = [f"index {name} holds {n} of {expected} documents" for name, n in counts.items() if n != expected]
    return "; ".join(behind) or None


def count_pipeline(index: str) -> list[dict[str, Any]]:
    """Documents in the search index itself (every stored document has a revision)."""
    return [{"$searchMeta": {"index": index, "exists": {"path": REVISION}, "count": {"type": "total"}}}]


def vector_count_pipeline(index: str, dimensions: int, expected: int) -> list[dict[str, Any]]:
    """Exact search returns every indexed vector up to `limit`; one more than expected shows a surplus."""
    probe = [1.0] + [0.0] * (dimensions - 1)
    stage = {"index": index, "path": VECTOR_PATH, "queryVector": probe, "exact": True, "limit": expected + 1}
    return [{"$vectorSearch": stage}, {"$project": {"_id": 1}}]


def revision_pipeline(index: str, revision: str) -> list[dict[str, Any]]:
    """Matches inside the index, not on the looked-up document, which is always the latest."""
    search = {"index": index, "equals": {"path": REVISION, "value": revision}}
    return [{"$search": search}, {"$limit": 1}, {"$project": {"_id": 1}}]


def vector_revision_pipeline(index: str, probe: Sequence[float], revision: str) -> list[dict[str, Any]]:
    stage = {
        "index": index,
        "path": VECTOR_PATH,
        "queryVector": list(probe),
        "exact": True,
        "limit": 1,
        "filter": {REVISION: {"$eq": revision}},
    }
    return [{"$vectorSearch": stage}, {"$project": {"_id": 1}}]


# -- queries ---------------------------------------------------------------------------------


def _presence(condition: Present | Absent) -> tuple[str, str]:
    """(path, token) that tests a presence condition."""
    return (PRESENT if isinstance(condition, Present) else ABSENT), condition.attribute


def search_filters(filters: Filters, spec: IndexSpec) -> list[dict[str, Any]]:
    """`compound.filter` clauses: they restrict matches without scoring or touching statistics.
    `in` matches an array if any element is listed; `equals` takes one value."""
    clauses: list[dict[str, Any]] = []
    for condition in filters.conditions:
        if isinstance(condition, Present | Absent):
            path, token = _presence(condition)
            clauses.append({"in": {"path": path, "value": [token]}})
        elif isinstance(condition, AnyOf) or spec.attributes[condition.attribute] is AttributeType.KEYWORDS:
            clauses.append({"in": {"path": condition.attribute, "value": condition.accepted}})
        else:
            clauses.append({"equals": {"path": condition.attribute, "value": condition.value}})
    return clauses


def vector_filter(filters: Filters, spec: IndexSpec) -> dict[str, Any] | None:
    """The same restriction in the MQL subset `$vectorSearch` pre-filters with."""
    conditions: list[dict[str, Any]] = []
    for condition in filters.conditions:
        if isinstance(condition, Present | Absent):
            path, token = _presence(condition)
            conditions.append({path: {"$in": [token]}})
        elif isinstance(condition, AnyOf) or spec.attributes[condition.attribute] is AttributeType.KEYWORDS:
            conditions.append({condition.attribute: {"$in": condition.accepted}})
        else:
            conditions.append({condition.attribute: {"$eq": condition.value}})
    return {"$and": conditions} if conditions else None


MAX_CLAUSES = 1000
"""Lucene refuses a query of more than 1,024 clauses (`maxClauseCount`); the filters take a few."""


def term_batches(terms: Sequence[str], fields: int) -> list[list[str]]:
    """Distinct terms in groups whose (field, term) clauses stay under `MAX_CLAUSES` each."""
    distinct = list(dict.fromkeys(terms))
    size = max(1, MAX_CLAUSES // max(1, fields))
    return [distinct[i : i + size] for i in range(0, len(distinct), size)]


def merge_batches(batches: Iterable[Iterable[Hit]]) -> list[Hit]:
    """One hit per document over every batch: its clauses joined, its score their sum. Exact when
    each batch returned every document it matched (no `$limit`)."""
    clauses: dict[str, list[Clause]] = {}
    for hits in batches:
        for hit in hits:
            clauses.setdefault(hit.id, []).extend(hit.clauses)
    return [Hit(doc_id, math.fsum(c.score for c in cs), tuple(cs)) for doc_id, cs in clauses.items()]


def lexical_pipeline(
    index: str, terms: Sequence[str], spec: IndexSpec, filters: Filters, limit: int | None
) -> list[dict[str, Any]]:
    """One boosted `text` clause per (field, distinct term), so each is its own BM25 explanation;
    `limit` None returns every match (a batch of a long query)."""
    should = [
        {"text": {"query": term, "path": field, "score": {"boost": {"value": weight}}}}
        for field, weight in spec.fields.items()
        for term in dict.fromkeys(terms)
    ]
    compound: dict[str, Any] = {"should": should, "minimumShouldMatch": 1}
    if clauses := search_filters(filters, spec):
        compound["filter"] = clauses
    return [
        {"$search": {"index": index, "compound": compound, "scoreDetails": True}},
        *([{"$limit": limit}] if limit is not None else []),
        {"$project": {"_id": 1, "score": {"$meta": "searchScore"}, "scoreDetails": {"$meta": "searchScoreDetails"}}},
    ]


def vector_pipeline(
    index: str, query: np.ndarray, spec: IndexSpec, filters: Filters, limit: int
) -> list[dict[str, Any]]:
    """Exact (ENN) search: ground truth like the other engines. ANN would instead pass
    `numCandidates` (at least 20 x limit, at most 10000) and drop `exact`."""
    stage: dict[str, Any] = {
        "index": index,
        "path": VECTOR_PATH,
        "queryVector": unit(query).tolist(),
        "exact": True,
        "limit": limit,
    }
    if (condition := vector_filter(filters, spec)) is not None:
        stage["filter"] = condition
    return [{"$vectorSearch": stage}, {"$project": {"_id": 1, "score": {"$meta": "vectorSearchScore"}}}]


# -- results ---------------------------------------------------------------------------------


def _terms_below(node: Mapping[str, Any]) -> list[tuple[str, str]]:
    match = _TERM_CLAUSE.match(node.get("description", ""))
    if match:
        return [(match["path"], match["term"])]
    return [t for child in node.get("details", ()) for t in _terms_below(child)]


def score_clauses(details: Mapping[str, Any], fields: Collection[str]) -> list[Clause]:
    """One `Clause` per BM25 term explanation in a `searchScoreDetails` tree.

    Each clause takes the value of the highest node that explains that term alone, so a boost is
    counted whether Lucene folds it into the term's explanation (a `boost` detail) or wraps it.
    """
    terms = _terms_below(details)
    if len(terms) == 1:
        (path, term), value = terms[0], float(details["value"])
        if path not in fields:
            raise ValueError(f"score details name field {path!r}, not one of {sorted(fields)}")
        return [Clause(path, term, value)]
    return [clause for child in details.get("details", ()) for clause in score_clauses(child, fields)]


def lexical_hit(row: Mapping[str, Any], fields: Collection[str]) -> Hit:
    """The score is the sum of the clauses (the contract), checked against Atlas's float32 score,
    then both are put in the (k1+1) form every engine reports."""
    lucene = score_clauses(row["scoreDetails"], fields)
    explained = math.fsum(c.score for c in lucene)
    if not lucene or not math.isclose(explained, row["score"], rel_tol=1e-5, abs_tol=1e-6):
        raise ValueError(
            f"atlas score details for {row['_id']!r} explain {explained}, not its searchScore {row['score']}"
        )
    clauses = tuple(Clause(c.field, c.term, c.score * K1_PLUS_1) for c in lucene)
    return Hit(row["_id"], math.fsum(c.score for c in clauses), clauses)


def cosine(vector_search_score: float) -> float:
    """Atlas reports cosine similarity as (1 + cos) / 2 in [0, 1]; the contract wants cos."""
    return 2.0 * vector_search_score - 1.0


def vector_hit(row: Mapping[str, Any]) -> Hit:
    similarity = cosine(row["score"])
    return Hit(row["_id"], similarity, (Clause("vector", "cosine", similarity),))
