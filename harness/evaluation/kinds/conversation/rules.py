"""Rulesets for conversation turns: which checks decide a turn and which turns a category score
counts, one named settings object each (as `pipeline/ruleset.py` is for belief suites).

`strict` is the harness's own reading: every asserted check decides the turn, and a category's
score is over the turns that assert content. `acervo-v0.5` is Acervo's, read from its
`tests/integration/test_benchmarks.py` at v0.5 (`_check_s2`, `_check_s3`, `_check_effectiveness`,
`_compute_scores`): a turn's public verdict is its effectiveness (the content checks), every turn
of a category counts (a turn without content checks as a pass), `context_not_contains` decides
only turns that carry an `effectiveness` key, the S1.5 extraction checks are diagnostics, and the
kind checks (`activate_kinds`, `not_activate_kinds`) are set to pass without being looked at.
Only the rules that differ between the two are fields; everything else is one judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from harness.models.conversation import TurnChecks


@dataclass(frozen=True)
class TurnRules:
    name: str
    verdict_by_content: bool
    """A turn passes when its content checks hold (Acervo's `effectiveness_passed`), whatever its
    intent, activation and budget checks say; else every asserted component decides."""
    counts_unchecked_turns: bool
    """A turn with no deciding content check counts in its category's score, as a pass."""
    not_contains_needs_effectiveness: bool
    """`context_not_contains` decides a turn only when the turn has an `effectiveness` key; on
    other turns it is a diagnostic (the content component still records it)."""
    store_checks_decide: bool
    """The S1.5 stored-fact checks (`should_extract_entity`, `should_extract_fact_containing`)
    decide the turn; else they are diagnostics outside every component."""
    activation_kinds_enforced: bool
    """`activate_kinds` and `not_activate_kinds` are checked (Acervo's code sets them to pass)."""

    def decides_not_contains(self, checks: TurnChecks, effectiveness: bool) -> bool:
        return bool(checks.not_contains) and (effectiveness or not self.not_contains_needs_effectiveness)

    def counted(self, checks: TurnChecks, effectiveness: bool) -> bool:
        """Whether the turn counts in its category's score."""
        deciding = (
            bool(checks.contains or checks.contains_any)
            or self.decides_not_contains(checks, effectiveness)
            or (self.store_checks_decide and bool(checks.fact_terms))
        )
        return deciding or self.counts_unchecked_turns

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


STRICT = TurnRules(
    name="strict",
    verdict_by_content=False,
    counts_unchecked_turns=False,
    not_contains_needs_effectiveness=False,
    store_checks_decide=True,
    activation_kinds_enforced=True,
)

ACERVO_V05 = TurnRules(
    name="acervo-v0.5",
    verdict_by_content=True,
    counts_unchecked_turns=True,
    not_contains_needs_effectiveness=True,
    store_checks_decide=False,
    activation_kinds_enforced=False,
)

TURN_RULES: Mapping[str, TurnRules] = MappingProxyType({r.name: r for r in (STRICT, ACERVO_V05)})


class TurnRulesName(StrEnum):
    """`--turn-rules`: `auto` judges `acervo:` suites by Acervo's rules (so their numbers compare
    with Acervo's published ones) and every other suite by the strict rules."""

    AUTO = "auto"
    STRICT = STRICT.name
    ACERVO_V05 = ACERVO_V05.name

    def rules(self, acervo_suite: bool) -> TurnRules:
        if self is TurnRulesName.AUTO:
            return ACERVO_V05 if acervo_suite else STRICT
        return TURN_RULES[self.value]
