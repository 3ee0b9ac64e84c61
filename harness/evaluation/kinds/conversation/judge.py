"""Judging one conversation turn: each asserted check of `TurnChecks` against the turn's context
and the facts stored after it, grouped by component (intent, activation, budget, content), and
the turn's verdict and place in its category's score under a ruleset (`turn_rules`).

Term checks are case-insensitive substring tests: context terms on the rendered context, label
terms on the labels (path and title) of the records in it, fact terms on the stored facts. As in
Acervo, `activate_labels` holds when some label has one of its terms, `not_activate_labels` when
no label has any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from harness.evaluation.judged_rules import Rule
from harness.evaluation.kinds.conversation.rules import STRICT, TurnRules
from harness.models.conversation import Component, TurnChecks
from harness.models.project import ProjectRecord
from harness.pipeline.conversation import TurnContext


@dataclass
class Verdict:
    """Per asserted component, whether it held, and why not; the turn's verdict, whether it counts
    in its category's score and whether it holds there (`effective`), as the ruleset says."""

    components: dict[str, bool] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    passed: bool = True
    counted: bool = True
    effective: bool = True

    def check(self, component: Component, holds: bool, rule: Rule, reason: str) -> None:
        self.components[component.value] = self.components.get(component.value, True) and holds
        if not holds:
            self.reasons.append(rule.reason(component.value, reason))


def judge_turn(
    checks: TurnChecks,
    context: TurnContext,
    facts_containing: Callable[[str], list[ProjectRecord]],
    rules: TurnRules = STRICT,
    effectiveness: bool = False,
) -> Verdict:
    """Every check the turn asserts; `facts_containing(term)` looks the stored facts up;
    `effectiveness`: the turn carries Acervo's `effectiveness` key."""
    verdict = Verdict()
    if checks.intent is not None:
        verdict.check(
            Component.INTENT,
            context.intent is checks.intent,
            Rule.INTENT,
            f"classified {context.intent}, expected {checks.intent}",
        )
    _activation(checks, context, verdict, rules.activation_kinds_enforced)
    tokens = context.tokens
    if checks.warm_tokens_min is not None:
        verdict.check(
            Component.BUDGET,
            tokens >= checks.warm_tokens_min,
            Rule.TOO_LITTLE,
            f"{tokens} tokens < {checks.warm_tokens_min}",
        )
    if checks.warm_tokens_max is not None:
        verdict.check(
            Component.BUDGET,
            tokens <= checks.warm_tokens_max,
            Rule.BUDGET,
            f"{tokens} tokens > {checks.warm_tokens_max} (the search's budget_tokens was {context.budget})",
        )
    text = context.text.lower()
    held = [term.lower() in text for term in checks.contains]
    for term, found in zip(checks.contains, held, strict=True):
        verdict.check(Component.CONTENT, found, Rule.TERM_MISSING, f"the context lacks {term!r}")
    if checks.contains_any:
        held.append(any(t.lower() in text for t in checks.contains_any))
        verdict.check(
            Component.CONTENT, held[-1], Rule.TERM_MISSING, f"the context has none of {list(checks.contains_any)}"
        )
    absent = [term.lower() not in text for term in checks.not_contains]
    for term, clean in zip(checks.not_contains, absent, strict=True):
        verdict.check(Component.CONTENT, clean, Rule.TERM_FORBIDDEN, f"the context has {term!r}")
    if rules.decides_not_contains(checks, effectiveness):
        held += absent
    for term in checks.fact_terms:
        stored = bool(facts_containing(term))
        if rules.store_checks_decide:
            verdict.check(Component.CONTENT, stored, Rule.FACTS, f"no stored fact contains {term!r}")
            held.append(stored)
        elif not stored:
            verdict.reasons.append(f"s1_5 (not scored): no stored fact contains {term!r}")
    verdict.effective = all(held)
    verdict.counted = rules.counted(checks, effectiveness)
    verdict.passed = verdict.effective if rules.verdict_by_content else all(verdict.components.values())
    return verdict


def _activation(checks: TurnChecks, context: TurnContext, verdict: Verdict, kinds_enforced: bool) -> None:
    kinds = {a.record.kind for a in context.records}
    labels = [a.label.lower() for a in context.records]
    for kind in checks.activate_kinds if kinds_enforced else ():
        verdict.check(Component.ACTIVATION, kind in kinds, Rule.ACTIVATION, f"no {kind} record activated")
    for kind in checks.not_activate_kinds if kinds_enforced else ():
        verdict.check(Component.ACTIVATION, kind not in kinds, Rule.ACTIVATION, f"a {kind} record activated")
    if checks.activate_labels:
        verdict.check(
            Component.ACTIVATION,
            any(term.lower() in label for term in checks.activate_labels for label in labels),
            Rule.ACTIVATION,
            f"no activated label has any of {list(checks.activate_labels)}",
        )
    for term in checks.not_activate_labels:
        hit = next((label for label in labels if term.lower() in label), None)
        verdict.check(Component.ACTIVATION, hit is None, Rule.ACTIVATION, f"activated {hit!r} has {term!r}")
    count = len(context.records)
    if checks.min_nodes is not None:
        verdict.check(
            Component.ACTIVATION, count >= checks.min_nodes, Rule.ACTIVATION, f"{count} records < {checks.min_nodes}"
        )
    if checks.max_nodes is not None:
        verdict.check(
            Component.ACTIVATION, count <= checks.max_nodes, Rule.ACTIVATION, f"{count} records > {checks.max_nodes}"
        )
