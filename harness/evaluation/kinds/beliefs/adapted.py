"""The belief port over a system inside a leaderboard's adapter (`pipeline/context_rules.py`).

PrecisionMemBench scores every external system through its own adapter: the adapter holds the
seed beliefs and builds the prelude, the pinned facts and the pinned open questions itself; the
system only stores what `/add` sends and answers `/search`, whose ids the adapter maps back onto
the seed. So a system judged this way declares those tiers (the adapter supplies them), and its
records carry the text, metadata and aliases that adapter sends.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

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


class AdaptedBeliefs:
    """One namespace of the system behind the adapter: the adapter's seed, in seed order, beside it."""

    def __init__(self, opened: MemorySystem, rules: AdapterRules, kind: AdapterKind, persona: tuple[str, str | None]):
        self._opened = opened
        self._rules = rules
        self._kind = kind
        self._persona = persona
        self._seed: dict[str, Memory] = {}

    def load(self, memories: Sequence[Memory]) -> None:
        """Seeding: one `/add` per belief in seed order, then `settle` where the rules wait after seeding."""
        self._seed |= {m.id: m for m in memories}
        self._opened.add([adapter_record(m, self._kind, self._rules) for m in memories])
        if self._rules.honours_wait and isinstance(self._opened, Settles):
            self._opened.settle()

    def mutate(self, turn: Turn) -> None:
        """A created belief is ingested and joins the seed; an alias update edits only the
        adapter's copy (the system is sent nothing, as in PrecisionMemBench)."""
        if turn.create is not None:
            self._seed[turn.create.id] = turn.create
            self._opened.add([ingested_record(turn.create)])
        if turn.update is not None:
            memory = self._seed[turn.update.memory_id]
            self._seed[memory.id] = memory.with_aliases(tuple(a.strip().lower() for a in turn.update.add_aliases))

    def context(self, request: Request, mode: Mode) -> Context:
        user, text = self._persona
        budget = ContextBudget() if request.max_beliefs is None else ContextBudget(max_beliefs=request.max_beliefs)
        asked = ContextRequest(request.user, request.scopes, request.query, budget, text or "")
        ranked = [
            [hit.id for hit in self._opened.search(Query(s.query, s.user, _scopes(s.scope), s.limit), mode)]
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
        self._opened.close()


class AdaptedPort:
    """Namespaces of a system bound to the run's engine, each behind the adapter `rules` name."""

    def __init__(self, system: BoundSystem, rules: AdapterRules):
        self._system = system
        self._rules = rules

    @property
    def name(self) -> str:
        return self._system.info.name

    @property
    def capabilities(self) -> frozenset[Need]:
        return frozenset(self._system.info.capabilities) | SUPPLIED

    def open(self, suite: Suite, rules: Ruleset, kind: CaseKind) -> Beliefs:  # noqa: ARG002 - the adapter's own rules
        user = suite.corpus.default_user
        text = persona_prelude(m for m in suite.corpus.memories if m.user == user and UNIVERSAL_SCOPE in m.scopes)
        adapter_kind = AdapterKind.STATIC if kind is CaseKind.STATIC else AdapterKind.SESSION
        opened = self._system.open(f"h{uuid.uuid4().hex[:12]}")
        return AdaptedBeliefs(opened, self._rules, adapter_kind, (user, text))
