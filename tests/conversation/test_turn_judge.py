"""Each check of a turn against a hand-built context: substring rules are case-insensitive, `contains`
needs all, `contains_any` one, `not_contains` none; label terms hold when some label has one; token
and node bounds are inclusive; fact terms are looked up in the stored facts."""

from __future__ import annotations

from harness.evaluation.kinds.conversation.judge import judge_turn
from harness.models.conversation import Intent, TurnChecks
from harness.models.project import ProjectRecord, RecordKind
from harness.pipeline.conversation import Activated, TurnContext


def _context(text: str, *records: ProjectRecord, tokens: int = 100, intent: Intent = Intent.SPECIFIC) -> TurnContext:
    return TurnContext(intent, "q", tuple(Activated(r, 1.0) for r in records), text, tokens, 600)


SECTION = ProjectRecord("docs/a.md#Ops/Backups", RecordKind.SECTION, "docs/a.md", "Backups", "x")
SYMBOL = ProjectRecord("srv/auth.py#sign", RecordKind.SYMBOL, "srv/auth.py", "sign", "y")


def _no_facts(_: str) -> list[ProjectRecord]:
    return []


def test_content_terms_case_insensitive() -> None:
    context = _context("The Bar has 0.9 M of WATER.")
    ok = judge_turn(TurnChecks(contains=("bar", "water"), contains_any=("nope", "0.9 m")), context, _no_facts)
    assert ok.passed
    assert ok.components == {"content": True}
    bad = judge_turn(TurnChecks(contains=("bar", "sand"), not_contains=("WATER",)), context, _no_facts)
    assert not bad.passed
    assert bad.reasons == ["content: term missing: the context lacks 'sand'", "content: forbidden term: the context has 'WATER'"]
    none = judge_turn(TurnChecks(contains_any=("sand", "rock")), context, _no_facts)
    assert none.components == {"content": False}


def test_activation_kinds_labels_and_counts() -> None:
    context = _context("text", SECTION, SYMBOL)
    checks = TurnChecks(
        activate_kinds=(RecordKind.SECTION,),
        not_activate_kinds=(RecordKind.FILE,),
        activate_labels=("nothing", "BACKUPS"),
        not_activate_labels=("tides",),
        min_nodes=2,
        max_nodes=2,
    )
    assert judge_turn(checks, context, _no_facts).components == {"activation": True}
    for failing in (
        TurnChecks(activate_kinds=(RecordKind.OVERVIEW,)),
        TurnChecks(not_activate_kinds=(RecordKind.SYMBOL,)),
        TurnChecks(activate_labels=("tides", "format")),
        TurnChecks(not_activate_labels=("auth",)),
        TurnChecks(min_nodes=3),
        TurnChecks(max_nodes=1),
    ):
        verdict = judge_turn(failing, context, _no_facts)
        assert verdict.components == {"activation": False}, failing


def test_budget_bounds_inclusive_and_intent() -> None:
    context = _context("t", tokens=150, intent=Intent.CHAT)
    assert judge_turn(TurnChecks(warm_tokens_min=150, warm_tokens_max=150), context, _no_facts).passed
    assert not judge_turn(TurnChecks(warm_tokens_max=149), context, _no_facts).passed
    assert not judge_turn(TurnChecks(warm_tokens_min=151), context, _no_facts).passed
    verdict = judge_turn(TurnChecks(intent=Intent.SPECIFIC, warm_tokens_max=600), context, _no_facts)
    assert verdict.components == {"intent": False, "budget": True}


def test_fact_terms_use_the_lookup() -> None:
    fact = ProjectRecord("fact:1", RecordKind.FACT, "", "Lead is Ana", "Lead is Ana")
    stored = {"ana": [fact]}
    verdict = judge_turn(TurnChecks(fact_terms=("ana", "bo")), _context(""), lambda t: stored.get(t, []))
    assert verdict.components == {"content": False}
    assert verdict.reasons == ["content: stated facts: no stored fact contains 'bo'"]


def test_nothing_asserted_passes_with_no_components() -> None:
    verdict = judge_turn(TurnChecks(), _context(""), _no_facts)
    assert verdict.passed
    assert verdict.components == {}
