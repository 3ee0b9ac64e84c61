"""Which context rule a belief run is judged under, and which one an existing report was made under.

A `tenure:` suite's published rows for other systems were made through PrecisionMemBench's
adapter, so a system other than the reference is judged that way on such suites unless
`--context-rules` says otherwise; the reference pipeline builds every tier itself unless
`--context-rules` names a reader's adapter (`precisionmembench-vector`), which then wraps its
engine search as PrecisionMemBench's vector baseline wraps its reader's.
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
    """The rule a run uses: `chosen`; else the reference pipeline's own tiers on the reference
    system, PrecisionMemBench's for `tenure:` suites on any other, else the system's own tiers."""
    if chosen is not None:
        return chosen
    if not reference and suites and all(s.ruleset.startswith(TENURE_FORMAT) for s in suites):
        return ContextRuleName.PRECISIONMEMBENCH
    return ContextRuleName.SYSTEM_PROVIDES_TIERS


def refuse_on_reference(chosen: ContextRuleName | None) -> None:
    """The reference is wrapped only by an adapter whose reader filters its search (liveness,
    scopes, types): an HTTP adapter passes through whatever a provider's `/search` returns, and the
    engine search filters no scope (a one-line error that stops the run, exit 2)."""
    if chosen is None or (rules := adapter_rules(chosen)) is None or rules.reader_filter:
        return
    raise HarnessError(
        f"--context-rules {chosen.value}: an HTTP adapter's rules apply to a system under test (--system); "
        f"the reference pipeline runs under its own tiers or under {ContextRuleName.PRECISIONMEMBENCH_VECTOR.value}"
    )


def rule_of(report: Mapping[str, Any]) -> ContextRuleName:
    """The context rule a belief report was made under: its `meta.context_rules`; a report from
    before the field was made with the system providing every tier (the reference included)."""
    recorded = (report.get("meta") or {}).get("context_rules")
    if recorded is None:
        return ContextRuleName.SYSTEM_PROVIDES_TIERS
    return ContextRuleName(recorded["name"])
