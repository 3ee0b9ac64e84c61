"""The belief port over a system under test: the suite's memories ingested as records, each
request searched, and the found ids tiered for the harness's own judge.

What the system returns is the relevant tier, except records the suite marks pinned (where the
system declares `pinned`) and open questions, which go to their own tiers; the persona prelude is
the reference pipeline's own construction, so a system never has one. It declares what the system
declares, so a failed case resting on anything else says so in its reasons.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence

from harness import tokens
from harness.evaluation.kinds.beliefs.port import Beliefs, Need
from harness.models import Memory, MemoryType, Suite, Turn
from harness.pipeline import Context, Mode
from harness.pipeline.context import Retrieved
from harness.pipeline.memory_layer import Request
from harness.pipeline.ruleset import CaseKind, Ruleset
from harness.systems.bound import BoundSystem
from harness.systems.protocol import Capability, MemorySystem, Query, Record

DEFAULT_LIMIT = 20
"""Results asked for when neither the case nor the ruleset sets a budget (PrecisionMemBench's limit)."""


def record_text(memory: Memory) -> str:
    """What a system is given to store: the memory's content, else its name and aliases."""
    if memory.content:
        return memory.content
    return ". ".join(part for part in (memory.name.replace("_", " "), *memory.aliases) if part)


def to_record(memory: Memory, pinned_rank: int | None = None) -> Record:
    """`pinned_rank`: a pinned record's place among its user's pinned records under the run's rules
    (1 first), which decides the pinned records kept when a search's `limit` cannot hold them all."""
    attributes: dict[str, str | bool | int | float] = {"type": memory.type.value, "status": memory.status.value}
    attributes |= {"pinned": memory.pinned, "pinned_rank": pinned_rank or 1} if memory.pinned else {}
    attributes |= {"superseded_by": memory.superseded_by} if memory.superseded_by else {}
    attributes |= {"subtype": memory.subtype} if memory.subtype else {}
    attributes |= {"resolved_at": memory.resolved_at.isoformat()} if memory.resolved_at else {}
    return Record(memory.id, record_text(memory), memory.user, memory.scopes, memory.created_at, attributes)


class SystemBeliefs:
    """One namespace of the system; it keeps the memories it was given, to tier what comes back."""

    def __init__(self, opened: MemorySystem, rules: Ruleset):
        self._opened = opened
        self._rules = rules
        self._memories: dict[str, Memory] = {}

    def load(self, memories: Sequence[Memory]) -> None:
        self._memories |= {m.id: m for m in memories}
        self._opened.add(self._records(memories))

    def _records(self, memories: Sequence[Memory]) -> list[Record]:
        """The memories as records, each pinned one with its rank among its user's pinned memories."""
        pinned = sorted((m for m in self._memories.values() if m.pinned), key=self._rules.pinned_key())
        per_user: Counter[str] = Counter()
        ranks: dict[str, int] = {}
        for memory in pinned:
            per_user[memory.user] += 1
            ranks[memory.id] = per_user[memory.user]
        return [to_record(m, ranks.get(m.id)) for m in memories]

    def mutate(self, turn: Turn) -> None:
        """A turn's new memory is added; an alias update replaces the memory where the system
        declares `replace` (else the runner notes the need in the case's reasons)."""
        if turn.create is not None:
            self._memories[turn.create.id] = turn.create
            self._opened.add(self._records([turn.create]))
        if turn.update is not None:
            updated = self._memories[turn.update.memory_id].with_aliases(tuple(turn.update.add_aliases))
            self._memories[updated.id] = updated
            if self._opened.info.supports(Capability.REPLACE):
                self._opened.add(self._records([updated]))

    def context(self, request: Request, mode: Mode) -> Context:
        limit = request.max_beliefs
        if limit is None:
            limit = self._rules.default_max_beliefs or DEFAULT_LIMIT
        query = Query(request.query, request.user, request.scopes, limit)
        pinned_tier = self._opened.info.supports(Capability.PINNED)
        asks = request.query.strip() or pinned_tier  # pinned records answer every query, an empty one too
        found = self._opened.search(query, mode) if limit > 0 and asks else []
        if unknown := [h.id for h in found if h.id not in self._memories]:
            raise ValueError(f"the system returned ids it was never given: {', '.join(unknown[:3])}")
        pinned: list[str] = []
        questions: list[str] = []
        relevant: list[Retrieved] = []
        for hit in found:
            memory = self._memories[hit.id]
            if memory.type is MemoryType.OPEN_QUESTION:
                questions.append(hit.id)
            elif memory.pinned and pinned_tier:
                pinned.append(hit.id)
            else:
                relevant.append(Retrieved(hit.id, len(relevant) + 1, hit.score or 0.0, (), None, "system"))
        text = " ".join(h.text or record_text(self._memories[h.id]) for h in found)
        return Context(None, tuple(pinned), tuple(relevant), tuple(questions), (), tokens.count(text))

    def topics(self, memory_id: str) -> tuple[str, ...]:
        memory = self._memories.get(memory_id)
        return memory.topics if memory else ()

    def close(self) -> None:
        self._opened.close()


class SystemPort:
    """Namespaces of a system bound to the run's engine; it declares what the system declares."""

    def __init__(self, system: BoundSystem):
        self._system = system

    @property
    def name(self) -> str:
        return self._system.info.name

    @property
    def capabilities(self) -> frozenset[Need]:
        return frozenset(self._system.info.capabilities)

    def open(self, suite: Suite, rules: Ruleset, kind: CaseKind) -> Beliefs:  # noqa: ARG002 - a namespace holds any suite
        return SystemBeliefs(self._system.open(f"h{uuid.uuid4().hex[:12]}"), rules)
