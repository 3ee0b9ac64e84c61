"""The belief port over a search inside a leaderboard's adapter (`pipeline/context_rules.py`).

PrecisionMemBench scores every external system through its own adapter: the adapter holds the
seed beliefs and builds the prelude, the pinned facts and the pinned open questions itself; the
system only stores what `/add` sends and answers `/search`, whose ids the adapter maps back onto
the seed. So a search judged this way declares those tiers (the adapter supplies them). What it
wraps is a `Searched` source: a system under test, whose records carry the text, metadata and
aliases that adapter sends (`SystemSearches`), or the reference pipeline's engine search
(`reference.EngineSearches`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Protocol

from harness import tokens
from harness.evaluation.kinds.beliefs.port import Beliefs, Construction, Need
from harness.models import UNIVERSAL_SCOPE, Memory, Suite, Turn
from harness.pipeline import Context, Mode
from harness.pipeline.context import Retrieved
from harness.pipeline.context_rules import (
    AdapterKind,
    AdapterRules,
    ContextBudget,
    ContextRequest,
    ProviderConfig,
    add_body,
    build_context,
    ingest_call,
    search_requests,
)
from harness.pipeline.memory_layer import Request
from harness.pipeline.prelude import persona_prelude
from harness.pipeline.ruleset import CaseKind, Ruleset
from harness.systems.bound import BoundSystem
from harness.systems.protocol import Capability, MemorySystem, Query, Record, Settles

PERSONA_STAND_IN = (
    "the harness's persona prelude (universal preferences) of the suite's default user, none for any "
    "other user: PrecisionMemBench's adapter holds its own persona text for its default user, not copied here"
)
"""What the adapter's persona lookup returns here, as the report names it."""

SUPPLIED: frozenset[Need] = frozenset({Capability.PINNED, Construction.PRELUDE})
"""What the adapter supplies whatever the system declares: the pinned tiers and the prelude."""


def adapter_record(memory: Memory, kind: AdapterKind, rules: AdapterRules) -> Record:
    """A seed belief as the adapter's seeding `/add` sends it: its text, user, metadata and aliases."""
    body = add_body(rules, memory, kind, memory.rationale)
    metadata = {k: v for k, v in body["metadata"].items() if k != "beliefId"}
    return Record(
        memory.id, body["text"], memory.user, memory.scopes, memory.created_at, {}, body.get("aliases"), metadata
    )


def ingested_record(memory: Memory) -> Record:
    """A session turn's created belief as `ingestBelief` sends it (session metadata, never aliases)."""
    body = ingest_call(memory, memory.rationale).body or {}
    metadata = {k: v for k, v in body["metadata"].items() if k != "beliefId"}
    return Record(memory.id, body["text"], memory.user, memory.scopes, memory.created_at, {}, None, metadata)


def _scopes(scope: str | tuple[str, ...] | None) -> tuple[str, ...]:
    if scope is None:
        return ()
    return scope if isinstance(scope, tuple) else (scope,)


def _budget(request: Request) -> ContextBudget:
    """The case's budget over the adapter's defaults, field by field, as `buildContext` spreads it."""
    given = {
        "max_beliefs": request.max_beliefs,
        "max_pinned_facts": request.max_pinned_facts,
        "max_questions": request.max_questions,
    }
    return ContextBudget(**{name: value for name, value in given.items() if value is not None})


class Wrapped(Protocol):
    """One namespace behind the adapter: the seed stored as the adapter stores it, and its search."""

    def seed(self, memories: Sequence[Memory]) -> None:
        """Store the seed; it is searchable when it returns."""
        ...

    def ingest(self, memory: Memory) -> None:
        """Store a session turn's created belief."""
        ...

    def search(self, query: Query, mode: Mode) -> list[str]:
        """The ids found for one of the adapter's searches, best first."""
        ...

    def close(self) -> None:
        """Remove what the namespace holds."""
        ...


class Searched(Protocol):
    """What the adapter wraps: it opens namespaces and declares what its search does."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[Need]: ...

    def open(self, suite: Suite, rules: Ruleset, kind: AdapterKind) -> Wrapped:
        """A fresh, empty namespace for `suite`, judged by `rules`, seeded as the adapter `kind` seeds."""
        ...


class SystemSearch:
    """A system's namespace as the adapter's HTTP client drives it."""

    def __init__(self, opened: MemorySystem, rules: AdapterRules, kind: AdapterKind):
        self._opened = opened
        self._rules = rules
        self._kind = kind

    def seed(self, memories: Sequence[Memory]) -> None:
        """One `/add` per belief in seed order, then `settle` where the rules wait after seeding."""
        self._opened.add([adapter_record(m, self._kind, self._rules) for m in memories])
        if self._rules.honours_wait and isinstance(self._opened, Settles):
            self._opened.settle()

    def ingest(self, memory: Memory) -> None:
        self._opened.add([ingested_record(memory)])

    def search(self, query: Query, mode: Mode) -> list[str]:
        return [hit.id for hit in self._opened.search(query, mode)]

    def close(self) -> None:
        self._opened.close()


class SystemSearches:
    """Namespaces of a system bound to the run's engine, as the adapter `rules` name seeds them."""

    def __init__(self, system: BoundSystem, rules: AdapterRules):
        self._system = system
        self._rules = rules

    @property
    def name(self) -> str:
        return self._system.info.name

    @property
    def capabilities(self) -> frozenset[Need]:
        return frozenset(self._system.info.capabilities)

    def open(self, suite: Suite, rules: Ruleset, kind: AdapterKind) -> Wrapped:  # noqa: ARG002 - the system's own
        return SystemSearch(self._system.open(f"h{uuid.uuid4().hex[:12]}"), self._rules, kind)


class AdaptedBeliefs:
    """One namespace behind the adapter, with the adapter's seed, in seed order, beside it."""

    def __init__(self, wrapped: Wrapped, rules: AdapterRules, persona: tuple[str, str | None]):
        self._wrapped = wrapped
        self._rules = rules
        self._persona = persona
        self._seed: dict[str, Memory] = {}

    def load(self, memories: Sequence[Memory]) -> None:
        self._seed |= {m.id: m for m in memories}
        self._wrapped.seed(memories)

    def mutate(self, turn: Turn) -> None:
        """A created belief is ingested and joins the seed; an alias update edits only the
        adapter's copy (the search is sent nothing, as in PrecisionMemBench)."""
        if turn.create is not None:
            self._seed[turn.create.id] = turn.create
            self._wrapped.ingest(turn.create)
        if turn.update is not None:
            memory = self._seed[turn.update.memory_id]
            self._seed[memory.id] = memory.with_aliases(tuple(a.strip().lower() for a in turn.update.add_aliases))

    def context(self, request: Request, mode: Mode) -> Context:
        user, text = self._persona
        asked = ContextRequest(request.user, request.scopes, request.query, _budget(request), text or "")
        ranked = [
            self._wrapped.search(Query(s.query, s.user, _scopes(s.scope), s.limit), mode)
            for s in search_requests(self._rules, asked, ProviderConfig())
        ]
        seed = list(self._seed.values())
        built = build_context(self._rules, seed, asked, ranked)
        relevant = tuple(Retrieved(i, rank, 0.0, (), None, "system") for rank, i in enumerate(built.relevant, 1))
        shown = [self._seed[i] for i in (*built.pinned, *built.relevant, *built.open_questions)]
        prelude = text if request.user == user else None
        rendered = " ".join(filter(None, [prelude, *(m.content or m.name for m in shown)]))
        return Context(prelude, built.pinned, relevant, built.open_questions, (), tokens.count(rendered))

    def topics(self, memory_id: str) -> tuple[str, ...]:
        memory = self._seed.get(memory_id)
        return memory.topics if memory else ()

    def close(self) -> None:
        self._wrapped.close()


class AdaptedPort:
    """Namespaces of `searched`, each behind the adapter `rules` name."""

    def __init__(self, searched: Searched, rules: AdapterRules):
        self._searched = searched
        self._rules = rules

    @property
    def name(self) -> str:
        return self._searched.name

    @property
    def capabilities(self) -> frozenset[Need]:
        return self._searched.capabilities | SUPPLIED

    def open(self, suite: Suite, rules: Ruleset, kind: CaseKind) -> Beliefs:
        user = suite.corpus.default_user
        text = persona_prelude(m for m in suite.corpus.memories if m.user == user and UNIVERSAL_SCOPE in m.scopes)
        adapter_kind = AdapterKind.STATIC if kind is CaseKind.STATIC else AdapterKind.SESSION
        return AdaptedBeliefs(self._searched.open(suite, rules, adapter_kind), self._rules, (user, text))
