"""Context rules for systems on belief suites: who builds the tiers around a system's search.

A leaderboard scores an external memory system through its own adapter, so a system's published
row means "this search, inside that adapter". `system-provides-tiers` is the harness's reading
until now: the system must return every tier itself. `precisionmembench` is PrecisionMemBench's
adapter (`src/adapters/baseAdapter.ts` and `universalSessionAdapter.ts`, docs/peer-rules.md): the
adapter holds the seed beliefs and supplies the persona prelude, the pinned facts and the pinned
open questions; the system only answers `/search`, whose ids the adapter maps back onto the seed.
`precisionmembench-vector` is its vector baseline's adapter and reader (`vectorAdapter.ts`,
`beliefsReaderVector.ts`), the rules its published `vector` row was made under.

Everything here is pure: the runner passes the seed, the request and the ranked ids each search
returned, and gets back the tiers and the HTTP bodies the adapter would have sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from harness.models import Memory, MemoryType


class ContextRuleName(StrEnum):
    SYSTEM_PROVIDES_TIERS = "system-provides-tiers"
    PRECISIONMEMBENCH = "precisionmembench"
    """The HTTP adapter at commit ec8347b (a commit that stores its published mem0 row)."""
    PRECISIONMEMBENCH_2209E60 = "precisionmembench@2209e60"
    """The HTTP adapter at commit 2209e60: per-scope search, `aliases` and `/wait` on seeding."""
    PRECISIONMEMBENCH_VECTOR = "precisionmembench-vector"
    """`VectorAdapter` over `BeliefsReaderVector`: how its published `vector` row was made."""


class ScopeSearch(StrEnum):
    """How a request with several scopes is searched."""

    FIRST = "one search with the first scope"
    ALL = "one search over every scope"
    EACH_INTERLEAVED = (
        "one search per scope, merged rank by rank (one search with all scopes when the provider supports it)"
    )


class AdapterKind(StrEnum):
    """PrecisionMemBench's two adapters: they differ in the metadata `/add` carries."""

    STATIC = "static"
    SESSION = "session"


@dataclass(frozen=True)
class AdapterRules:
    """The adapter's rules that changed between its versions; the rest is one implementation."""

    name: ContextRuleName
    scope_search: ScopeSearch
    expansion_skips_open_questions: bool
    """Relation expansion leaves out participants that are open questions."""
    add_sends_aliases: bool
    """Seeding's `/add` body carries the belief's `aliases` beside the text."""
    honours_wait: bool
    """After seeding, `POST /wait` is called where the provider declares `waitAfterSeed`."""
    reader_filter: bool = False
    """The search keeps only the user's live beliefs among `max_beliefs * candidate_factor`
    candidates, then only those that are no open question, no `expertise` and share a request
    scope, then cuts at `max_beliefs` (else every seed belief the system returns is kept)."""
    candidate_factor: int = 1
    expansion_lookup: bool = False
    """Participants are fetched by one lookup: each once, in seed order (else relation by relation,
    a participant of two relations twice)."""


@dataclass(frozen=True)
class ProviderConfig:
    """One entry of PrecisionMemBench's providers.config.json, as the adapter reads it.

    `beliefToText` is read there but never consulted: every provider gets the same text
    (`add_text`), so it is not a field here.
    """

    wait_after_seed: bool = False
    supports_multi_scope: bool = False


@dataclass(frozen=True)
class ContextBudget:
    """The adapter's `DEFAULT_BUDGET`; a case's budget overrides these field by field.

    `max_pinned_facts` is declared there but never applied: the pinned tier is capped by
    `max_beliefs` (see `build_context`).
    """

    max_beliefs: int = 20
    max_pinned_facts: int = 10
    max_questions: int = 15


@dataclass(frozen=True)
class ContextRequest:
    user: str
    scopes: tuple[str, ...]
    query: str
    budget: ContextBudget = ContextBudget()
    persona: str = ""
    """The prelude the adapter's persona lookup holds for this user ("" when it holds none)."""


@dataclass(frozen=True)
class SearchRequest:
    """One `POST /search` body."""

    query: str
    user: str
    limit: int
    scope: str | tuple[str, ...] | None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"query": self.query, "user_id": self.user, "limit": self.limit}
        if self.scope is not None:  # JSON.stringify drops an undefined scope
            body["scope"] = list(self.scope) if isinstance(self.scope, tuple) else self.scope
        return body


@dataclass(frozen=True)
class HttpCall:
    method: str
    path: str
    body: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class BuiltContext:
    """The tiers as ids in the adapter's order; `relevant` may repeat an expanded participant."""

    prelude: str
    pinned: tuple[str, ...]
    relevant: tuple[str, ...]
    open_questions: tuple[str, ...]


PRECISIONMEMBENCH_RULES = AdapterRules(
    name=ContextRuleName.PRECISIONMEMBENCH,
    scope_search=ScopeSearch.FIRST,
    expansion_skips_open_questions=False,
    add_sends_aliases=False,
    honours_wait=False,
)

PRECISIONMEMBENCH_2209E60_RULES = AdapterRules(
    name=ContextRuleName.PRECISIONMEMBENCH_2209E60,
    scope_search=ScopeSearch.EACH_INTERLEAVED,
    expansion_skips_open_questions=True,
    add_sends_aliases=True,
    honours_wait=True,
)

PRECISIONMEMBENCH_VECTOR_RULES = AdapterRules(
    name=ContextRuleName.PRECISIONMEMBENCH_VECTOR,
    scope_search=ScopeSearch.ALL,
    expansion_skips_open_questions=False,
    add_sends_aliases=False,
    honours_wait=False,
    reader_filter=True,
    candidate_factor=4,
    expansion_lookup=True,
)

ADAPTER_RULES: Mapping[ContextRuleName, AdapterRules] = MappingProxyType(
    {r.name: r for r in (PRECISIONMEMBENCH_RULES, PRECISIONMEMBENCH_2209E60_RULES, PRECISIONMEMBENCH_VECTOR_RULES)}
)


def adapter_rules(name: ContextRuleName) -> AdapterRules | None:
    """The adapter's rules, or None where the system provides every tier itself."""
    return ADAPTER_RULES.get(name)


def _in_scope(memory: Memory, scopes: Sequence[str]) -> bool:
    return any(scope in scopes for scope in memory.scopes)


def live(memory: Memory) -> bool:
    """The adapter's liveness (its reader's filters): `superseded_by` and `resolved_at` unset; a
    `superseded` status alone hides nothing."""
    return memory.superseded_by is None and memory.resolved_at is None


def pinned_facts(seed: Sequence[Memory], user: str, scopes: Sequence[str]) -> tuple[Memory, ...]:
    """`listPinnedFacts`: the user's pinned, live, non-question beliefs in scope, in seed order."""
    return tuple(
        m
        for m in seed
        if m.user == user and m.pinned and m.type is not MemoryType.OPEN_QUESTION and live(m) and _in_scope(m, scopes)
    )


def pinned_questions(seed: Sequence[Memory], user: str, scopes: Sequence[str]) -> tuple[Memory, ...]:
    """`listPinnedOpenQuestions`: pinned, unresolved open questions in scope (supersession not read)."""
    return tuple(
        m
        for m in seed
        if m.user == user
        and m.type is MemoryType.OPEN_QUESTION
        and m.pinned
        and m.resolved_at is None
        and _in_scope(m, scopes)
    )


def search_requests(
    rules: AdapterRules, request: ContextRequest, provider: ProviderConfig
) -> tuple[SearchRequest, ...]:
    """The searches `buildContext` makes: none for a blank query or a zero belief budget.

    `limit` is the candidates the search returns: `max_beliefs` times the rules' candidate factor.
    """
    if not request.query.strip() or request.budget.max_beliefs <= 0:
        return ()
    limit = request.budget.max_beliefs * rules.candidate_factor
    scopes = request.scopes
    if rules.scope_search is ScopeSearch.ALL:
        return (SearchRequest(request.query, request.user, limit, scopes),)
    if rules.scope_search is ScopeSearch.EACH_INTERLEAVED and len(scopes) > 1:
        if provider.supports_multi_scope:
            return (SearchRequest(request.query, request.user, limit, scopes),)
        return tuple(SearchRequest(request.query, request.user, limit, scope) for scope in scopes)
    return (SearchRequest(request.query, request.user, limit, scopes[0] if scopes else None),)


def _mapped(ids: Sequence[str], index: Mapping[str, Memory], excluded: frozenset[str]) -> list[Memory]:
    """`searchText`: ids mapped back onto the seed, first occurrence kept, pinned and unknown ids dropped.

    No liveness or user filter: whatever seed belief the system returns is kept.
    """
    seen: set[str] = set()
    found: list[Memory] = []
    for memory_id in ids:
        if not memory_id or memory_id in seen:
            continue
        seen.add(memory_id)
        if memory_id in excluded or memory_id not in index:
            continue
        found.append(index[memory_id])
    return found


def _read(
    ids: Sequence[str], index: Mapping[str, Memory], excluded: frozenset[str], request: ContextRequest, factor: int
) -> list[Memory]:
    """`BeliefsReaderVector.searchText`: live beliefs of the user among the first candidates, then
    the reader's type, subtype, scope and pinned filters, cut at `max_beliefs`."""
    candidates = [m for m in _mapped(ids, index, frozenset()) if m.user == request.user and live(m)]
    kept = [
        m
        for m in candidates[: request.budget.max_beliefs * factor]
        if m.type is not MemoryType.OPEN_QUESTION
        and m.subtype != "expertise"
        and _in_scope(m, request.scopes)
        and m.id not in excluded
    ]
    return kept[: request.budget.max_beliefs]


def _interleaved(lists: Sequence[list[Memory]], limit: int) -> list[Memory]:
    """One search per scope merged rank by rank, each id once, stopping at `limit`."""
    merged: list[Memory] = []
    seen: set[str] = set()
    for rank in range(max((len(found) for found in lists), default=0)):
        for found in lists:
            if rank >= len(found) or found[rank].id in seen:
                continue
            seen.add(found[rank].id)
            merged.append(found[rank])
            if len(merged) >= limit:
                return merged
    return merged


def _participants(
    rules: AdapterRules,
    results: Sequence[Memory],
    index: Mapping[str, Memory],
    request: ContextRequest,
    pinned: frozenset[str],
) -> list[Memory]:
    """`expandRelationParticipants`: each relation's participants of the same user and scope.

    Participants already pinned or found are skipped. Named relation by relation, one named by
    two relations comes twice; looked up (`expansion_lookup`), each comes once, in seed order.
    """
    excluded = pinned | {m.id for m in results}
    named = [i for relation in results if relation.type is MemoryType.RELATION for i in relation.participants]
    if rules.expansion_lookup:
        wanted = set(named)
        named = [i for i in index if i in wanted]
    expanded: list[Memory] = []
    for memory_id in named:
        participant = index.get(memory_id)
        if memory_id in excluded or participant is None:
            continue
        if rules.expansion_skips_open_questions and participant.type is MemoryType.OPEN_QUESTION:
            continue
        if participant.user != request.user:
            continue
        if request.scopes and not _in_scope(participant, request.scopes):
            continue
        expanded.append(participant)
    return expanded


def build_context(
    rules: AdapterRules, seed: Sequence[Memory], request: ContextRequest, ranked: Sequence[Sequence[str]]
) -> BuiltContext:
    """`buildContext` over the ids each of `search_requests`' calls returned, in that order
    (`ranked` is empty when it made none).

    The cap is `max_beliefs` for pinned first, then the relevant tier gets what is left.
    """
    index = {m.id: m for m in seed}
    pinned = pinned_facts(seed, request.user, request.scopes)
    questions = pinned_questions(seed, request.user, request.scopes)
    excluded = frozenset(m.id for m in pinned)
    if rules.reader_filter:
        found = [_read(ids, index, excluded, request, rules.candidate_factor) for ids in ranked]
    else:
        found = [_mapped(ids, index, excluded) for ids in ranked]
    limit = request.budget.max_beliefs
    results = found[0] if len(found) == 1 else _interleaved(found, limit)
    relevant = results + (_participants(rules, results, index, request, excluded) if results else [])
    capped_pinned = pinned[:limit]
    return BuiltContext(
        prelude=request.persona,
        pinned=tuple(m.id for m in capped_pinned),
        relevant=tuple(m.id for m in relevant[: max(0, limit - len(capped_pinned))]),
        open_questions=tuple(m.id for m in questions[: request.budget.max_questions]),
    )


def add_text(memory: Memory, why_it_matters: str = "") -> str:
    """`beliefToText`: name, aliases, content and rationale, the empty ones left out, space-joined.

    The provider's `beliefToText` setting is not consulted, so this is every provider's text.
    `why_it_matters` is Tenure's field of that name (`Memory.rationale`).
    """
    return " ".join(part for part in (memory.name, *memory.aliases, memory.content, why_it_matters) if part)


def _metadata(memory: Memory, kind: AdapterKind) -> dict[str, Any]:
    if kind is AdapterKind.STATIC:
        return {"beliefId": memory.id, "scope": memory.scopes[0]}
    return {
        "beliefId": memory.id,
        "scope": list(memory.scopes),
        "type": memory.type.value,
        "pinned": memory.pinned,
        "superseded_by": memory.superseded_by,
    }


def add_body(rules: AdapterRules, memory: Memory, kind: AdapterKind, why_it_matters: str = "") -> dict[str, Any]:
    """One seeding `POST /add` body."""
    body: dict[str, Any] = {
        "text": add_text(memory, why_it_matters),
        "user_id": memory.user,
        "metadata": _metadata(memory, kind),
    }
    if rules.add_sends_aliases:
        body["aliases"] = list(memory.aliases)
    return body


def seed_calls(
    rules: AdapterRules,
    seed: Sequence[Memory],
    kind: AdapterKind,
    provider: ProviderConfig,
    rationale: Mapping[str, str] = MappingProxyType({}),
) -> tuple[HttpCall, ...]:
    """`seed`: reset, one `/add` per belief in seed order, then `/wait` where it applies."""
    adds = tuple(HttpCall("POST", "/add", add_body(rules, m, kind, rationale.get(m.id, ""))) for m in seed)
    wait = (HttpCall("POST", "/wait"),) if rules.honours_wait and provider.wait_after_seed else ()
    return (HttpCall("DELETE", "/reset"), *adds, *wait)


def ingest_call(memory: Memory, why_it_matters: str = "") -> HttpCall:
    """`ingestBelief` (a session turn's created belief): session metadata, never `aliases`.

    A turn's alias update sends nothing: the adapter only edits its own copy of the belief.
    """
    body = {
        "text": add_text(memory, why_it_matters),
        "user_id": memory.user,
        "metadata": _metadata(memory, AdapterKind.SESSION),
    }
    return HttpCall("POST", "/add", body)
