"""A belief case's failed checks in the system's terms: each id the judge flags is explained by
what the suite knows of the record (its user, its scopes, its successor, whether it is pinned),
so the reason names the rule broken, not only the id set that differed.

A record that surfaced where it must not is, in order: another user's, superseded (or a resolved
open question), out of the query's scopes, off-topic after a drift (a session's noise), pinned
(it belongs in the pinned tier), else simply not expected for this query. A record expected and
not returned is pinned but missing, or expected but missing. Each explanation also says which
capability it rests on, so a hint about an undeclared capability appears only where it applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from harness.evaluation.judge import Breach
from harness.evaluation.judged_rules import Rule
from harness.evaluation.kinds.beliefs.port import Construction, Need
from harness.models import UNIVERSAL_SCOPE, Memory, Status
from harness.pipeline.ruleset import Ruleset
from harness.systems.protocol import Capability

QUOTE_CHARS = 60
"""A record's text is quoted up to this many characters: enough to recognise it."""

RESTS_ON: dict[Rule, Need] = {
    Rule.OTHER_USER: Capability.USERS,
    Rule.OUT_OF_SCOPE: Capability.SCOPES,
    Rule.SUPERSEDED: Capability.SUPERSESSION,
    Rule.RESOLVED: Capability.SUPERSESSION,
    Rule.PINNED: Capability.PINNED,
    Rule.PRELUDE: Construction.PRELUDE,
}
"""The capability (or the reference pipeline's construction) a broken rule rests on."""


@dataclass(frozen=True)
class Asked:
    """What the case asked: whose memories, in which scopes, and a session turn's topics."""

    user: str
    scopes: tuple[str, ...]
    topics: tuple[str, ...] = ()


@dataclass
class Explained:
    """The reasons, one per flagged id (or prelude check), and the needs they rest on, in order."""

    reasons: list[str] = field(default_factory=list)
    needs: list[Need] = field(default_factory=list)

    def add(self, rule: Rule, where: str, detail: str, *, rests: bool = True) -> None:
        """`rests`: whether the check rests on the rule's capability (a prelude check that holds
        with no prelude at all, `must not contain`, rests on no construction)."""
        self.reasons.append(rule.reason(where, detail))
        if rests and (need := RESTS_ON.get(rule)) is not None and need not in self.needs:
            self.needs.append(need)


def quoted(memory: Memory) -> str:
    """The record's text as a person recognises it: its content, else its name and aliases."""
    text = memory.content or ". ".join(part for part in (memory.name.replace("_", " "), *memory.aliases) if part)
    text = " ".join(text.split())
    return f'"{text[:QUOTE_CHARS]}…"' if len(text) > QUOTE_CHARS else f'"{text}"'


def _scopes(scopes: Sequence[str]) -> str:
    return ", ".join(scopes)


class Explainer:
    """Explains flagged ids against the suite's records under the case's ruleset."""

    def __init__(self, memories: Mapping[str, Memory], rules: Ruleset):
        self.memories = memories
        self.rules = rules

    def explain(self, breaches: Sequence[Breach], asked: Asked) -> Explained:
        out = Explained()
        banned = {m for b in breaches if b.banned for m in b.surfaced}
        seen: set[tuple[bool, str]] = set()
        for breach in breaches:
            if breach.prelude is not None:
                wants_text = breach.prelude.startswith(("should contain", "expected non-empty"))
                out.add(Rule.PRELUDE, breach.where, breach.prelude, rests=wants_text)
                continue
            for memory_id in breach.missing:
                if (False, memory_id) not in seen:
                    seen.add((False, memory_id))
                    self._missing(out, breach.where, memory_id, asked)
            for memory_id in breach.surfaced:
                if (True, memory_id) not in seen:
                    seen.add((True, memory_id))
                    self._surfaced(out, breach.where, memory_id, asked, memory_id in banned)
        return out

    def _missing(self, out: Explained, where: str, memory_id: str, asked: Asked) -> None:
        memory = self.memories[memory_id]  # the suite's checks made every expected id a record of it
        if memory.pinned:
            out.add(
                Rule.PINNED,
                where,
                f"{memory_id} {quoted(memory)} is pinned for {asked.user!r} in {_scopes(memory.scopes)}, "
                "so it is returned for every query in its scopes, and was not returned",
            )
        else:
            out.add(Rule.MISSING, where, f"{memory_id} {quoted(memory)} was not returned")

    def _surfaced(self, out: Explained, where: str, memory_id: str, asked: Asked, banned: bool) -> None:
        memory = self.memories.get(memory_id)
        if memory is None:  # a port that makes records of its own (an adapter's expansion) returned it
            out.add(Rule.UNEXPECTED, where, f"{memory_id} is no record of the suite")
            return
        visible = {*asked.scopes, UNIVERSAL_SCOPE} if self.rules.universal_in_every_scope else set(asked.scopes)
        if memory.user != asked.user:
            out.add(
                Rule.OTHER_USER, where, f"{memory_id} belongs to user {memory.user!r}; the query is {asked.user!r}'s"
            )
        elif memory.superseded_by is not None:
            successor = self.memories.get(memory.superseded_by)
            said = f" {quoted(successor)}" if successor else ""
            out.add(Rule.SUPERSEDED, where, f"{memory_id} is superseded by {memory.superseded_by}{said}")
        elif memory.status is Status.SUPERSEDED and self.rules.superseded_status_hides:
            out.add(Rule.SUPERSEDED, where, f"{memory_id} has status 'superseded'")
        elif memory.resolved_at is not None:
            out.add(
                Rule.RESOLVED, where, f"{memory_id} is an open question resolved at {memory.resolved_at.isoformat()}"
            )
        elif visible.isdisjoint(memory.scopes):
            out.add(
                Rule.OUT_OF_SCOPE,
                where,
                f"{memory_id} is scoped {_scopes(memory.scopes)}; the query asked {_scopes(asked.scopes)}",
            )
        elif where == "noise":
            topics = f" (topics {_scopes(memory.topics)})" if memory.topics else ""
            now = f"; the turn is about {_scopes(asked.topics)}" if asked.topics else ""
            out.add(Rule.OFF_TOPIC, where, f"{memory_id} {quoted(memory)}{topics} surfaced after the drift{now}")
        elif memory.pinned and where == "relevant":
            out.add(Rule.PINNED, where, f"{memory_id} is pinned: it belongs in the pinned tier, not among the relevant")
        else:
            verdict = (
                "must not be returned for this query" if banned else "was returned, but the case does not expect it"
            )
            out.add(Rule.UNEXPECTED, where, f"{memory_id} {quoted(memory)} {verdict}")
