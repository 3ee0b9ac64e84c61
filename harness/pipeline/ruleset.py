"""Rulesets: the retrieval and judging rules a suite's authors use, one named settings object each.

An imported suite is judged by its source's rules for its version, so that a pass means what it
means upstream. `builtin` is the harness's own contract (cases/README.md); `tenure@paper` and
`tenure@head` are Tenure's rules as its code implements them at tag v1.0.0-paper and at HEAD
(PrecisionMemBench runs Tenure's HEAD rules); see ../shared/reference/peer-formats.md section 1.7.
Only the rules that differ between sources are fields; everything else is one pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from harness.models import Memory
from harness.pipeline.query_cleanup import QueryCleanup


class PinnedOrder(StrEnum):
    CONFIDENCE = "confidence desc, reinforcement_count desc, id"
    EDITED_THEN_RECENT = "user_edited desc, last_reinforced_at desc, id"


class MutationTiming(StrEnum):
    """When a session turn's create/update happens relative to that turn's own retrieval."""

    BEFORE_RETRIEVAL = "before retrieval"
    AFTER_CHECKS = "after retrieval and checks"


class CaseKind(StrEnum):
    STATIC = "static"
    SESSION = "session"


@dataclass(frozen=True)
class Ruleset:
    name: str
    universal_in_every_scope: bool
    """`user:universal` memories are in every session (else only when the request's scopes name it)."""
    pinned_allows_universal: bool
    """Whether a pinned `user:universal` memory can be in the pinned tier."""
    pinned_user_edited_any_scope: bool
    """A pinned `user_edited` memory is pinned whatever the session's scopes."""
    pinned_requires_active_status: bool
    """Only `active` memories are pinned (else any live one: inferred, exploratory)."""
    superseded_status_hides: bool
    """A memory whose status is `superseded` is never injected, successor id or not (else only
    `superseded_by` and `resolved_at` hide a memory: Tenure's ACTIVE_FILTER and search filter)."""
    pinned_order: PinnedOrder
    pinned_limit: int | None
    default_max_beliefs: int | None
    """Cap on pinned + relevant when a case sets no budget (None: no cap). Tenure's evaluation builds
    every context with `ContextBudget.maxBeliefs` 20 unless the case overrides it, and searches with
    that same limit, so the cap is also its relevant tier's only limit."""
    relevant_excluded_subtypes: frozenset[str]
    """Memories of these subtypes never enter the relevant tier (in any mode)."""
    open_questions_by_query: bool
    """Open questions named by the query join the tier (else only pinned ones do)."""
    prelude_case_sensitive: bool
    """Prelude `contains`/`must_not_contain` match case as written (Tenure's `String.includes`)."""
    query_cleanup: QueryCleanup
    """What every mode searches with: Tenure's evaluation hands the cleaned query to the text and the
    vector search alike, and searches nothing when the clean-up leaves nothing."""
    fuzzy_min_length: int
    """Both words need this many characters to match fuzzily; 0: the prefix guard alone decides."""
    fuzzy_prefix: int
    fuzzy_multiword: bool
    """Phrases of several words match fuzzily word by word (else exactly: Tenure matches them as
    query shingles, while its fuzzy clauses compare one query word with a whole one-word name)."""
    phrase_max_words: int | None
    """Names and aliases longer than this (in words as written, underscores as spaces) never make a
    memory relevant: Tenure indexes each as one token and its query shingles are two words long."""
    vector_limit: int
    """Top-k of the vector baseline (and of hybrid fusion); no score floor in either ruleset."""
    embed_name_as_written: bool
    """Embed `name` + aliases joined by spaces as written (else underscores read as spaces, `. `-joined)."""
    mutations: MutationTiming
    union_checks: frozenset[CaseKind]
    """Case kinds whose relevant `must_include`/`must_exclude` and noise checks look at relevant
    and pinned together (`should_only_include` always looks at the relevant tier alone)."""
    upstream_embedding_model: str | None = None
    """The model the suite's authors embedded with, when it is not the harness's."""

    def live(self, memory: Memory) -> bool:
        """Whether the memory may be injected at all (in any tier)."""
        if self.superseded_status_hides:
            return memory.injectable
        return memory.superseded_by is None and memory.resolved_at is None

    def pinned_key(self) -> Callable[[Memory], tuple[Any, ...]]:
        if self.pinned_order is PinnedOrder.CONFIDENCE:
            return lambda m: (-m.confidence, -m.reinforcement_count, m.id)
        return lambda m: (not m.user_edited, -_timestamp(m.last_reinforced_at), m.id)

    def searchable(self, phrase: str) -> bool:
        return self.phrase_max_words is None or len(phrase.replace("_", " ").split()) <= self.phrase_max_words

    def checks_union(self, kind: CaseKind) -> bool:
        return kind in self.union_checks

    def to_json(self) -> dict[str, Any]:
        record = asdict(self)
        for key, value in record.items():
            if isinstance(value, frozenset):
                record[key] = sorted(str(v) for v in value)
            elif isinstance(value, StrEnum):
                record[key] = value.value
        return record


def _timestamp(value: datetime | None) -> float:
    """Missing timestamps sort last in a descending sort, as MongoDB sorts null below dates."""
    return value.timestamp() if value is not None else float("-inf")


BUILTIN_RULES = Ruleset(
    name="builtin",
    universal_in_every_scope=True,
    pinned_allows_universal=True,
    pinned_user_edited_any_scope=False,
    pinned_requires_active_status=True,
    superseded_status_hides=True,
    pinned_order=PinnedOrder.CONFIDENCE,
    pinned_limit=None,
    default_max_beliefs=None,
    relevant_excluded_subtypes=frozenset(),
    open_questions_by_query=True,
    prelude_case_sensitive=False,
    query_cleanup=QueryCleanup.NONE,
    fuzzy_min_length=5,
    fuzzy_prefix=2,
    fuzzy_multiword=True,
    phrase_max_words=None,
    vector_limit=5,
    embed_name_as_written=False,
    mutations=MutationTiming.BEFORE_RETRIEVAL,
    union_checks=frozenset(),
)

TENURE_HEAD_RULES = Ruleset(
    name="tenure@head",
    universal_in_every_scope=False,
    pinned_allows_universal=False,
    # As peer-formats.md 1.7 records HEAD; intermediate versions of beliefsReader.ts still have the bypass.
    pinned_user_edited_any_scope=False,
    pinned_requires_active_status=False,
    superseded_status_hides=False,
    pinned_order=PinnedOrder.EDITED_THEN_RECENT,
    # contextBuilder passes ContextBudget.maxPinnedFacts (10) to listPinnedFacts (whose own default is 40)
    pinned_limit=10,
    default_max_beliefs=20,
    relevant_excluded_subtypes=frozenset({"expertise"}),
    open_questions_by_query=False,
    prelude_case_sensitive=True,
    query_cleanup=QueryCleanup.STRIP_CODE_AND_NOISE,
    fuzzy_min_length=0,
    fuzzy_prefix=2,
    fuzzy_multiword=False,
    phrase_max_words=2,
    vector_limit=20,
    embed_name_as_written=True,
    mutations=MutationTiming.AFTER_CHECKS,
    union_checks=frozenset({CaseKind.STATIC, CaseKind.SESSION}),
    upstream_embedding_model="nomic-embed-text",
)

TENURE_PAPER_RULES = Ruleset(
    **{
        **asdict(TENURE_HEAD_RULES),
        "name": "tenure@paper",
        "pinned_user_edited_any_scope": True,
        "query_cleanup": QueryCleanup.STRIP_NOISE,
        "union_checks": frozenset({CaseKind.SESSION}),
    }
)

RULESETS: Mapping[str, Ruleset] = MappingProxyType(
    {r.name: r for r in (BUILTIN_RULES, TENURE_PAPER_RULES, TENURE_HEAD_RULES)}
)


def ruleset(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        raise ValueError(f"unknown ruleset {name!r} (known: {', '.join(RULESETS)})") from None
