"""Judging one conversation turn: each asserted check of `TurnChecks` against the turn's context
and the facts stored after it, grouped by component (intent, activation, budget, content).

Term checks are case-insensitive substring tests: context terms on the rendered context, label
terms on the labels (path and title) of the records in it, fact terms on the stored facts. As in
Acervo, `activate_labels` holds when some label has one of its terms, `not_activate_labels` when
no label has any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from harness.models.conversation import Component, TurnChecks
from harness.models.project import ProjectRecord
from harness.pipeline.conversation import TurnContext


@dataclass
class Verdict:
    """Per asserted component, whether it held; and why not."""

    components: dict[str, bool] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)

    def check(self, component: Component, holds: bool, reason: str) -> None:
        self.components[component.value] = self.components.get(component.value, True) and holds
        if not holds:
            self.reasons.append(f"{component.value}: {reason}")

    @property
    def passed(self) -> bool:
        return all(self.components.values())


def judge_turn(
    checks: TurnChecks, context: TurnContext, facts_containing: Callable[[str], list[ProjectRecord]]
) -> Verdict:
    """Every check the turn asserts; `facts_containing(term)` looks the stored facts up."""
    verdict = Verdict()
    if checks.intent is not None:
        verdict.check(
            Component.INTENT, context.intent is checks.intent, f"classified {context.intent}, expected {checks.intent}"
        )
    _activation(checks, context, verdict)
    tokens = context.tokens
    if checks.warm_tokens_min is not None:
        verdict.check(Component.BUDGET, tokens >= checks.warm_tokens_min, f"{tokens} tokens < {checks.warm_tokens_min}")
    if checks.warm_tokens_max is not None:
        verdict.check(Component.BUDGET, tokens <= checks.warm_tokens_max, f"{tokens} tokens > {checks.warm_tokens_max}")
    text = context.text.lower()
    for term in checks.contains:
        verdict.check(Component.CONTENT, term.lower() in text, f"context lacks {term!r}")
    if checks.contains_any:
        verdict.check(
            Component.CONTENT,
            any(t.lower() in text for t in checks.contains_any),
            f"context has none of {list(checks.contains_any)}",
        )
    for term in checks.not_contains:
        verdict.check(Component.CONTENT, term.lower() not in text, f"context has {term!r}")
    for term in checks.fact_terms:
        verdict.check(Component.CONTENT, bool(facts_containing(term)), f"no stored fact contains {term!r}")
    return verdict


def _activation(checks: TurnChecks, context: TurnContext, verdict: Verdict) -> None:
    kinds = {a.record.kind for a in context.records}
    labels = [a.label.lower() for a in context.records]
    for kind in checks.activate_kinds:
        verdict.check(Component.ACTIVATION, kind in kinds, f"no {kind} record activated")
    for kind in checks.not_activate_kinds:
        verdict.check(Component.ACTIVATION, kind not in kinds, f"a {kind} record activated")
    if checks.activate_labels:
        verdict.check(
            Component.ACTIVATION,
            any(term.lower() in label for term in checks.activate_labels for label in labels),
            f"no activated label has any of {list(checks.activate_labels)}",
        )
    for term in checks.not_activate_labels:
        hit = next((label for label in labels if term.lower() in label), None)
        verdict.check(Component.ACTIVATION, hit is None, f"activated {hit!r} has {term!r}")
    count = len(context.records)
    if checks.min_nodes is not None:
        verdict.check(Component.ACTIVATION, count >= checks.min_nodes, f"{count} records < {checks.min_nodes}")
    if checks.max_nodes is not None:
        verdict.check(Component.ACTIVATION, count <= checks.max_nodes, f"{count} records > {checks.max_nodes}")
