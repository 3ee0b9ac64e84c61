"""The rules a memory system is judged by, in the system's terms: every failed check's reason is
`where: <rule>: detail`, so an author reads which promise their system broke (scopes, users,
supersession, pinned facts, the budget) rather than which id set differed.

This enum is the one list: docs/system-protocol.md's table "What a system is judged by" states
each rule by its title, and a test fails when the two differ, so the judge cannot check a rule the
protocol does not state.
"""

from __future__ import annotations

from enum import Enum


class Rule(Enum):
    """A judged rule: its value is how reasons and the protocol's table name it."""

    MISSING = "expected but missing"
    UNEXPECTED = "not expected"
    OTHER_USER = "another user's record"
    OUT_OF_SCOPE = "out of the query's scopes"
    SUPERSEDED = "superseded"
    RESOLVED = "resolved"
    PINNED = "pinned"
    OFF_TOPIC = "off-topic after a drift"
    BUDGET = "past the budget"
    TOO_LITTLE = "too little context"
    TERM_MISSING = "term missing"
    TERM_FORBIDDEN = "forbidden term"
    ACTIVATION = "records in the context"
    FACTS = "stated facts"
    RANKED_LOW = "ranked below the top"
    QUALITY = "ranking quality"
    PRELUDE = "persona prelude"
    INTENT = "intent"

    def reason(self, where: str, detail: str) -> str:
        """A failed check's reason: where it failed (a tier, a component, a level), this rule, what."""
        return f"{where}: {self.value}: {detail}"


def rule_of(reason: str) -> Rule | None:
    """The rule a reason names (None: a note, not a failed check, such as a capability hint)."""
    _, _, rest = reason.partition(": ")
    return next((rule for rule in Rule if rest.startswith(f"{rule.value}: ")), None)
