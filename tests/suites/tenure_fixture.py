"""Invented fixtures in the Tenure / PrecisionMemBench layout (peer-formats.md section 1).

Content is our own: user u-maya owns nine beliefs, u-theo one. The cases mix the paper tag's
style (no `category`) with HEAD's, so the suite is detected as HEAD and judged by the
`tenure@head` rules (peer-formats.md section 1.7); `static_cases("paper")` and
`static_cases("head")` are the single-version variants. The expected verdicts for the bm25
reference pipeline are derived by hand from those rules next to each case.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STAMP = "2024-02-01T09:00:00Z"


def belief(belief_id: str, **fields: Any) -> dict[str, Any]:
    """A full belief record as the seed file has them (every documented key present)."""
    record: dict[str, Any] = {
        "_id": belief_id,
        "user_id": "u-maya",
        "type": "entity",
        "canonical_name": belief_id.removeprefix("b-").replace("-", "_"),
        "aliases": [],
        "content": f"Payload of {belief_id}.",
        "why_it_matters": "Not searched.",
        "scope": ["domain:code"],
        "epistemic_status": "active",
        "pinned": False,
        "confidence": 0.8,
        "reinforcement_count": 1,
        "user_edited": False,
        "created_at": STAMP,
        "updated_at": STAMP,
        "last_reinforced_at": STAMP,
        "resolved_at": None,
        "superseded_by": None,
        "change_log": [],
        "provenance": {
            "session_id": "seed",
            "turn_id": "seed",
            "extracted_at": STAMP,
            "source_model": "fixture",
        },
    }
    record.update(fields)
    return record


def beliefs() -> list[dict[str, Any]]:
    return [
        belief(
            "b-postgres",
            canonical_name="postgres_database",
            aliases=["postgres", "pg cluster"],
            confidence=0.9,
        ),
        belief(
            "b-strict-ts",
            type="preference",
            subtype="style",
            canonical_name="typescript_strict_mode",
            aliases=["strict typescript"],
            content="Prefers TypeScript strict mode in every project.",
            pinned=True,
            confidence=0.95,
            reinforcement_count=3,
        ),
        belief(
            "b-mysql-old",
            type="decision",
            canonical_name="mysql_primary_store",
            aliases=["mysql"],
            epistemic_status="superseded",
            superseded_by="b-postgres",
        ),
        belief(
            "b-oq-orm",
            type="open_question",
            canonical_name="orm_choice",
            aliases=["which orm"],
            pinned=True,
            resolved_at="2024-03-01T00:00:00Z",
        ),
        belief(
            "b-oq-hosting",
            type="open_question",
            canonical_name="hosting_provider",
            pinned=True,
            confidence=0.7,
        ),
        belief(
            "b-api",
            canonical_name="billing_api",
            aliases=["billing service"],
            confidence=0.85,
        ),
        belief(
            "b-rel-billing-db",
            type="relation",
            relation_type="depends_on",
            participants=["b-api", "b-postgres"],
            canonical_name="billing_storage_dependency",
            aliases=["billing storage"],
        ),
        belief(
            "b-pref-concise",
            type="preference",
            canonical_name="concise_answers",
            aliases=["tldr"],
            content="Keeps answers short and leads with the conclusion.",
            scope=["user:universal"],
            pinned=True,
            confidence=0.99,
            reinforcement_count=5,
            user_edited=True,
        ),
        belief(
            "b-pref-oxford",
            type="preference",
            canonical_name="oxford_comma",
            content="Uses the Oxford comma.",
            scope=["domain:writing"],
            confidence=0.8,
        ),
        belief(
            "b-theo-postgres",
            user_id="u-theo",
            canonical_name="postgres_database",
            aliases=["postgres"],
        ),
    ]


# Static cases. Verdicts (bm25, tenure@head rules):
#   alias-postgres       PASS: alias `postgres` occurs; theo's copy is another user's; pinned = the
#                             one pinned in-scope belief (the universal concise one is never pinned).
#   supersession-mysql   FAIL: expects the superseded belief, which never surfaces in any tier.
#   cross-user-theo      PASS: u-theo sees only his own postgres, has no pinned and no preferences.
#   budget-one           PASS: cap 1 keeps the one pinned belief (strict-ts) and evicts postgres and
#                             the billing api.
#   relation-expansion   PASS: alias `billing storage` names the relation; its two participants join.
#   prelude-writing      FAIL: writing scope prelude = concise (universal) + oxford comma, no TS;
#                             nothing is pinned in the writing scope; but Tenure's prelude checks
#                             keep case (String.includes): the prelude says `Oxford comma` and
#                             `short`, so `oxford comma` and `SHORT` are missing.
#   questions-resolved   PASS: the pinned hosting question is in; the resolved orm question is
#                             out although named; open questions never enter the relevant tier.
STATIC_VERDICTS = {
    "alias-postgres": True,
    "supersession-mysql": False,
    "cross-user-theo": True,
    "budget-one": True,
    "relation-expansion": True,
    "prelude-writing": False,
    "questions-resolved": True,
}


def static_cases(version: str | None = None) -> list[dict[str, Any]]:
    """The mixed cases; `paper`: none has a category (the paper tag); `head`: all have one."""
    cases = _static_cases()
    for case in cases:
        if version == "paper":
            case.pop("category", None)
        elif version == "head":
            case.setdefault("category", "Design boundary cases")
    return cases


def _static_cases() -> list[dict[str, Any]]:
    return [
        {
            "caseId": "alias-postgres",
            "description": "A plain alias resolves to its entity.",
            "category": "Alias resolution",
            "scope": ["domain:code"],
            "query": "Why is postgres slow on the orders table?",
            "notes": "Theo also has a postgres belief; it must not leak.",
            "expect": {
                "relevantBeliefs": {"shouldOnlyInclude": ["b-postgres"]},
                "pinnedFacts": {"mustInclude": ["b-strict-ts"], "mustExclude": ["b-pref-concise"]},
            },
        },
        {
            # paper tag style: no category
            "caseId": "supersession-mysql",
            "description": "Superseded beliefs are audit-only.",
            "scope": ["domain:code"],
            "query": "Should we keep mysql as the primary store?",
            "expect": {
                "relevantBeliefs": {
                    "shouldOnlyInclude": ["b-mysql-old"],
                    "_note": "deliberately wrong: a superseded belief cannot surface",
                }
            },
        },
        {
            "caseId": "cross-user-theo",
            "description": "Cold start for the second user.",
            "category": "Cross-user isolation",
            "userId": "u-theo",
            "scope": ["domain:code"],
            "query": "postgres connection limits",
            "expect": {
                "relevantBeliefs": {"shouldOnlyInclude": ["b-theo-postgres"]},
                "pinnedFacts": {"mustExclude": ["b-strict-ts"]},
                "personaPrelude": {"isNull": True},
            },
        },
        {
            "caseId": "budget-one",
            "description": "One slot: the top pinned belief takes it.",
            "category": "Budget eviction and capacity",
            "scope": ["domain:code"],
            "query": "postgres and the billing service",
            "budget": {"maxBeliefs": 1},
            "expect": {
                "relevantBeliefs": {"shouldOnlyInclude": []},
                "pinnedFacts": {
                    "mustInclude": ["b-strict-ts"],
                    "mustExclude": ["b-pref-concise"],
                },
            },
        },
        {
            # paper tag style: no category
            "caseId": "relation-expansion",
            "description": "A relation brings its participants one hop.",
            "scope": ["domain:code"],
            "query": "Check the billing storage before the migration",
            "expect": {"relevantBeliefs": {"shouldOnlyInclude": ["b-rel-billing-db", "b-api", "b-postgres"]}},
        },
        {
            "caseId": "prelude-writing",
            "description": "The prelude holds universal and in-scope preferences only.",
            "category": "Persona prelude content",
            "scope": ["domain:writing"],
            "query": "",
            "_note": "empty query on purpose",
            "expect": {
                "relevantBeliefs": {"shouldOnlyInclude": []},
                "pinnedFacts": {"mustExclude": ["b-pref-concise", "b-strict-ts"]},
                "personaPrelude": {
                    "nonEmpty": True,
                    "contains": ["oxford comma", "SHORT"],
                    "mustNotContain": ["strict mode"],
                },
            },
        },
        {
            "caseId": "questions-resolved",
            "description": "Resolved questions never surface, even when named.",
            "category": "Type routing and open questions",
            "scope": ["domain:code"],
            "query": "which orm should we pick",
            "expect": {
                "relevantBeliefs": {"shouldOnlyInclude": []},
                "openQuestions": {
                    "mustInclude": ["b-oq-hosting"],
                    "mustExclude": ["b-oq-orm"],
                },
            },
        },
    ]


# Session cases, replayed in order on one evolving index; a turn's create/update applies after
# that turn's retrieval and checks (tenure@head):
#   A t0  PASS  `postgres` names b-postgres; the code-scope pinned belief is pinned.
#   A t1  FAIL  b-redis is created at this turn, so it is not there yet, and `postgres` is named:
#               the exact set fails and the noise check fails. Drift = 1 noise / (1 relevant +
#               1 pinned) = 0.5.
#   A t2  PASS  the alias `billing gateway` is added after this turn: nothing is relevant yet.
#   A t3  PASS  re-entry on postgres, and the billing gateway now names b-api; the misnested
#               pinnedFacts (hoisted) holds.
#   B t0  PASS  b-redis, created in case A, is found through its alias `redis`.
TURN_VERDICTS = {
    ("session-a", 0): True,
    ("session-a", 1): False,
    ("session-a", 2): True,
    ("session-a", 3): True,
    ("session-b", 0): True,
}
TURN_DRIFT = {
    ("session-a", 0): 0.0,
    ("session-a", 1): 0.5,
    ("session-a", 2): 0.0,
    ("session-a", 3): 0.0,
    ("session-b", 0): 0.0,
}


def turn(
    index: int,
    label: str,
    message: str,
    topics: list[str],
    expect: dict[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    return {
        "turnIndex": index,
        "label": label,
        "scope": ["domain:code"],
        "turnSignal": "substantive",
        "userMessage": message,
        "assistantMessage": "" if index >= 3 else "Sure, looking at it.",
        "topics": topics,
        **extra,
        "expect": expect,
    }


def session_cases() -> list[dict[str, Any]]:
    redis = belief(
        "b-redis",
        canonical_name="redis_cache",
        aliases=["redis"],
        provenance={"extracted_at": STAMP, "source_model": "fixture"},
    )
    return [
        {
            "caseId": "session-a",
            "description": "Database topic, drift to caching and billing, re-entry.",
            "notes": "Case B relies on the state this case leaves.",
            "turns": [
                turn(
                    0,
                    "establishes_topic",
                    "The postgres pool is exhausted again",
                    ["database"],
                    {
                        "relevantBeliefs": {"shouldOnlyInclude": ["b-postgres"]},
                        "pinnedFacts": {"mustInclude": ["b-strict-ts"]},
                        "openQuestions": {"mustInclude": ["b-oq-hosting"]},
                    },
                ),
                turn(
                    1,
                    "drift",
                    "Let's set up the redis cache next to postgres",
                    ["caching"],
                    {
                        "relevantBeliefs": {"shouldOnlyInclude": ["b-redis"]},
                        "noiseCheck": {"mustNotSurface": ["b-postgres"]},
                    },
                    createBeliefAtTurn=redis,
                ),
                turn(
                    2,
                    "drift",
                    "Does the billing gateway need a retry?",
                    ["billing"],
                    {
                        "relevantBeliefs": {"shouldOnlyInclude": []},
                        "topicRetrieval": {"shouldRetrieveTurns": []},
                    },
                    updateBeliefAtTurn={
                        "beliefId": "b-api",
                        "addAliases": ["billing gateway", "payments edge"],
                        "_note": "alias enrichment",
                    },
                ),
                turn(
                    3,
                    "re_entry",
                    "Back to the postgres timeouts behind the billing gateway",
                    ["database"],
                    {
                        "relevantBeliefs": {
                            "shouldOnlyInclude": ["b-postgres", "b-api"],
                            "_note": "pinnedFacts is nested here by mistake in the published file",
                            "pinnedFacts": {"mustInclude": ["b-strict-ts"]},
                        }
                    },
                ),
            ],
        },
        {
            "caseId": "session-b",
            "description": "Relies on case A's created belief.",
            "turns": [
                turn(
                    0,
                    "re_entry",
                    "Is redis still the cache?",
                    ["caching"],
                    {
                        "relevantBeliefs": {"shouldOnlyInclude": ["b-redis"]},
                        "noiseCheck": {"mustNotSurface": ["b-postgres"]},
                    },
                )
            ],
        },
    ]


def write_tenure(folder: Path, *, seed: Any = None, static: Any = None, sessions: Any = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "beliefs.seed.json": beliefs() if seed is None else seed,
        "retrieval.cases.json": static_cases() if static is None else static,
        "session-retrieval.cases.json": session_cases() if sessions is None else sessions,
    }
    for name, data in files.items():
        if data is not False:  # False: leave the file out
            (folder / name).write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder
