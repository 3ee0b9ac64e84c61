"""Which context rule a belief run is judged under, and which one an existing report was made under.

A `tenure:` suite's published rows for other systems were made through PrecisionMemBench's
adapter, so a system other than the reference is judged that way on such suites unless
`--context-rules` says otherwise; the reference pipeline builds every tier itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.errors import HarnessError
from harness.models import Suite
from harness.pipeline.context_rules import ContextRuleName, adapter_rules

TENURE_FORMAT = "tenure@"
"""The prefix of the rulesets `tenure:` suites are judged by (`pipeline/ruleset.py`)."""


def chosen_rule(chosen: ContextRuleName | None, suites: Sequence[Suite], reference: bool) -> ContextRuleName:
    """The rule a run uses: the reference pipeline's own tiers on the reference system; elsewhere
    `chosen`, else PrecisionMemBench's for `tenure:` suites only, else the system's own tiers."""
    if reference:
        return ContextRuleName.SYSTEM_PROVIDES_TIERS
    if chosen is not None:
        return chosen
    if suites and all(s.ruleset.startswith(TENURE_FORMAT) for s in suites):
        return ContextRuleName.PRECISIONMEMBENCH
    return ContextRuleName.SYSTEM_PROVIDES_TIERS


def refuse_on_reference(chosen: ContextRuleName | None) -> None:
    """An adapter's rules wrap a system's search; the reference pipeline builds every tier itself
    and has none to wrap (a one-line error that stops the run, exit 2)."""
    if chosen is not None and adapter_rules(chosen) is not None:
        raise HarnessError(
            f"--context-rules {chosen.value}: the reference pipeline builds every tier itself; "
            "an adapter's rules apply to a system under test (--system)"
        )


def rule_of(report: Mapping[str, Any]) -> ContextRuleName:
    """The context rule a belief report was made under: its `meta.context_rules`; a report from
    before the field was made with the system providing every tier (the reference included)."""
    recorded = (report.get("meta") or {}).get("context_rules")
    if recorded is None:
        return ContextRuleName.SYSTEM_PROVIDES_TIERS
    return ContextRuleName(recorded["name"])
