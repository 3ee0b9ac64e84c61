"""The turn rules (`evaluation/kinds/conversation/rules.py`) on our own fixture (acervo_rules/rules.yaml, over
our kiln-controller project): each turn's outcome under the strict and the acervo-v0.5 rules is
derived by hand from the rules (see each turn's `note`), and each rule decides the turns written
for it: flip that one rule and exactly those turns' outcomes change."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness.backends import registry
from harness.evaluation.kind import Engine, KindOptions
from harness.evaluation.kinds.conversation.results import TurnResult
from harness.evaluation.kinds.conversation.rules import ACERVO_V05, STRICT, TurnRules, TurnRulesName
from harness.evaluation.kinds.conversation.runner import ConversationKind
from harness.evaluation.kinds.conversation.spec import ConversationOptions, build
from harness.pipeline.settings import Mode
from harness.reports.document import RunInfo
from harness.suites.acervo import load_acervo

HERE = Path(__file__).parent
SUITE = load_acervo(HERE / "acervo_rules", projects=HERE / "acervo" / "fixtures")
RULES = {"strict": STRICT, "acervo": ACERVO_V05}

Outcome = tuple[bool, bool, bool, tuple[str, ...]]
"""A turn's verdict, whether it counts in its category, whether it holds there, and its failed components."""


def run(rules: TurnRules) -> list[TurnResult]:
    backend = registry.connect("embedded")
    try:
        kind = ConversationKind(SUITE, rules=rules)
        return [r for step in kind.execute(Engine(backend, None, (Mode.BM25,))) for r in step.results]
    finally:
        backend.close()


def outcomes(results: list[TurnResult]) -> dict[int, Outcome]:
    assert all(r.error is None for r in results)
    return {
        r.turn: (r.passed, r.counted, r.effective, tuple(sorted(c for c, held in r.components.items() if not held)))
        for r in results
    }


@pytest.fixture(scope="module")
def own() -> dict[str, dict[int, Outcome]]:
    return {name: outcomes(run(rules)) for name, rules in RULES.items()}


def test_outcomes_under_each_ruleset(own) -> None:
    assert own["strict"] == {
        1: (True, True, True, ()),
        2: (False, True, True, ("intent",)),  # content held; the wrong intent check decides
        3: (True, False, True, ()),  # no content check: not counted
        4: (False, True, False, ("content",)),  # the noise check decides everywhere
        5: (False, True, False, ("content",)),
        6: (False, True, False, ("content",)),  # the stored-fact check decides
        7: (False, True, True, ("activation",)),  # the kind check decides
    }
    assert own["acervo"] == {
        1: (True, True, True, ()),
        2: (True, True, True, ("intent",)),  # effectiveness: content alone
        3: (True, True, True, ()),  # counted, as a pass
        4: (True, True, True, ("content",)),  # noise recorded in the component, not in the verdict
        5: (False, True, False, ("content",)),  # an effectiveness key: the noise check decides
        6: (True, True, True, ()),  # S1.5 a diagnostic; no content check: counted as a pass
        7: (True, True, True, ()),  # kinds never looked at
    }


FLIPS: list[tuple[str, str, Any, set[int]]] = [
    # a turn's verdict: its content (Acervo's effectiveness) or every component; turn 4's content
    # component holds the noise check, turn 7's activation component the kind check
    ("acervo", "verdict_by_content", False, {2, 4}),
    ("strict", "verdict_by_content", True, {2, 7}),
    # turns without a deciding content check count (as passes) or not
    ("acervo", "counts_unchecked_turns", False, {3, 6}),
    ("strict", "counts_unchecked_turns", True, {3}),
    # context_not_contains decides only with an effectiveness key (turn 5 has one: decided either way)
    ("acervo", "not_contains_needs_effectiveness", False, {4}),
    ("strict", "not_contains_needs_effectiveness", True, {4}),
    # the S1.5 stored-fact checks decide, or are diagnostics
    ("acervo", "store_checks_decide", True, {6}),
    ("strict", "store_checks_decide", False, {6}),
    # activate_kinds / not_activate_kinds are checked, or set to pass
    ("acervo", "activation_kinds_enforced", True, {7}),
    ("strict", "activation_kinds_enforced", False, {7}),
]


@pytest.mark.parametrize(("rules", "field", "flipped", "turns"), FLIPS, ids=[f"{r}-{f}" for r, f, _, _ in FLIPS])
def test_each_rule_decides_its_turns(own, rules: str, field: str, flipped: Any, turns: set[int]) -> None:
    assert getattr(RULES[rules], field) is not flipped
    changed = outcomes(run(replace(RULES[rules], **{field: flipped})))
    assert {turn for turn, outcome in changed.items() if outcome != own[rules][turn]} == turns


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        # category: (held, out of); strict counts the turns with a deciding content check
        ("strict", {"GROUND": (2, 2), "FOCUS": (0, 2), "RECALL": (0, 1), "RESOLVE": (1, 1)}),
        # Acervo counts every turn of a category
        ("acervo", {"GROUND": (2, 2), "FOCUS": (2, 3), "RECALL": (1, 1), "RESOLVE": (1, 1)}),
    ],
)
def test_category_scores_say_what_they_are_out_of(rules: str, expected: dict[str, tuple[int, int]]) -> None:
    results = run(RULES[rules])
    backend = registry.connect("embedded")
    info = RunInfo(backend.info(), (Mode.BM25,), {}, {}, datetime.now(UTC), 0.1)
    backend.close()
    report = ConversationKind(SUITE, rules=RULES[rules]).report(results, info)
    categories = report.data["summary"]["bm25"]["categories"]
    assert {cat: (c["held"], c["out_of"]) for cat, c in categories.items() if c["turns"]} == expected
    assert report.data["turn_rules"]["name"] == RULES[rules].name
    held, out_of = expected["FOCUS"]
    assert f"{held / out_of:.2f} ({held}/{out_of})" in report.scorecard.rows[0]
    assert f"turn rules: {RULES[rules].name} (--turn-rules)" in report.scorecard.caption


def test_auto_picks_acervo_rules_for_acervo_suites_only() -> None:
    common = KindOptions(modes=(Mode.BM25,))
    auto = ConversationOptions()
    assert auto.turn_rules is TurnRulesName.AUTO
    assert build([f"acervo:{HERE / 'acervo'}"], common, auto).rules is ACERVO_V05
    assert build(["conversation:builtin"], common, auto).rules is STRICT
    strict = ConversationOptions(TurnRulesName.STRICT)
    assert build([f"acervo:{HERE / 'acervo'}"], common, strict).rules is STRICT
    acervo = ConversationOptions(TurnRulesName.ACERVO_V05)
    assert build(["conversation:builtin"], common, acervo).rules is ACERVO_V05


def test_a_report_from_before_turn_rules_reads_back_with_its_strict_verdicts() -> None:
    from harness.evaluation.kinds.conversation.spec import result_from_json

    row = {"suite": "s", "scenario": "p1", "turn": 1, "category": "RESOLVE", "backend": "embedded", "mode": "bm25"}
    old = [{**row, "turn": 1, "passed": True}, {**row, "turn": 2, "passed": False}]  # no counted/effective fields
    read = [result_from_json({**r, "user": "u", "expected": {}}) for r in old]
    assert [(r.counted, r.effective) for r in read] == [(True, True), (True, False)]
