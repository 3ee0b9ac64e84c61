"""Flip tests for PrecisionMemBench's context rules on an invented seed (context_rules_fixture.py).

Each case states the tiers the rule gives and those the rule flipped would give; the two differ,
so the case decides the rule, and the code must give the first. Where a rule is a field of
`AdapterRules` the flipped rules are run too.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.pipeline.context_rules import (
    PRECISIONMEMBENCH_2209E60_RULES,
    PRECISIONMEMBENCH_RULES,
    PRECISIONMEMBENCH_VECTOR_RULES,
    AdapterKind,
    AdapterRules,
    ContextBudget,
    ContextRequest,
    ContextRuleName,
    HttpCall,
    ProviderConfig,
    SearchRequest,
    adapter_rules,
    add_body,
    build_context,
    ingest_call,
    search_requests,
    seed_calls,
)
from tests.pipeline.context_rules_fixture import GARDEN, KITCHEN, SEED, USER

PMB = PRECISIONMEMBENCH_RULES
LATEST = PRECISIONMEMBENCH_2209E60_RULES
VECTOR = PRECISIONMEMBENCH_VECTOR_RULES
BY_ID = {m.id: m for m in SEED}


def _request(query: str = "garden things", scopes: tuple[str, ...] = (GARDEN,), **budget: int) -> ContextRequest:
    return ContextRequest(USER, scopes, query, ContextBudget(**budget), persona="Plain words, please.")


def _relevant(ranked: list[str]) -> tuple[str, ...]:
    return build_context(PMB, SEED, _request(), [ranked]).relevant


def _decides(actual: object, under_rule: object, flipped: object) -> None:
    assert under_rule != flipped, "the case does not decide the rule"
    assert actual == under_rule


def test_system_provides_tiers_has_no_adapter_rules() -> None:
    assert adapter_rules(ContextRuleName.SYSTEM_PROVIDES_TIERS) is None
    assert adapter_rules(ContextRuleName.PRECISIONMEMBENCH) is PMB


def test_adapter_supplies_prelude_pinned_and_questions_without_any_search() -> None:
    context = build_context(PMB, SEED, _request(query="  "), [])
    # Flipped (the system provides every tier): a context with no search has no tiers at all.
    _decides(
        (context.prelude, context.pinned, context.open_questions),
        ("Plain words, please.", ("raised-beds", "no-peat"), ("which-tomato",)),
        ("", (), ()),
    )


def test_pinned_facts_leave_out_the_superseded_and_other_scopes() -> None:
    pinned = build_context(PMB, SEED, _request(), [[]]).pinned
    # Flipped (no `superseded_by` filter): the replaced pinned preference comes back.
    _decides(pinned, ("raised-beds", "no-peat"), ("raised-beds", "no-peat", "old-hoe"))


def test_pinned_questions_leave_out_the_resolved_and_unpinned() -> None:
    questions = build_context(PMB, SEED, _request(), [[]]).open_questions
    # Flipped (no `resolved_at` filter): the answered question stays.
    _decides(questions, ("which-tomato",), ("which-tomato", "which-hose"))


def test_blank_query_and_zero_budget_make_no_search() -> None:
    one = (SearchRequest("garden things", USER, 20, GARDEN),)
    _decides(search_requests(PMB, _request(query=" \t"), ProviderConfig()), (), one)
    _decides(search_requests(PMB, _request(max_beliefs=0), ProviderConfig()), (), (replace(one[0], limit=0),))
    assert search_requests(PMB, _request(), ProviderConfig()) == one


def test_search_limit_is_max_beliefs() -> None:
    _decides(search_requests(PMB, _request(max_beliefs=8), ProviderConfig())[0].limit, 8, 20)


def test_several_scopes_search_the_first_one() -> None:
    request = _request(scopes=(KITCHEN, GARDEN))
    first = (SearchRequest("garden things", USER, 20, KITCHEN),)
    per_scope = (first[0], SearchRequest("garden things", USER, 20, GARDEN))
    _decides(search_requests(PMB, request, ProviderConfig()), first, per_scope)
    assert search_requests(LATEST, request, ProviderConfig()) == per_scope
    multi = ProviderConfig(supports_multi_scope=True)
    assert search_requests(LATEST, request, multi) == (SearchRequest("garden things", USER, 20, (KITCHEN, GARDEN)),)


def test_results_are_deduplicated() -> None:
    _decides(
        _relevant(["compost-bin", "compost-bin", "rain-barrel"]),
        ("compost-bin", "rain-barrel"),
        ("compost-bin", "compost-bin", "rain-barrel"),
    )


def test_pinned_ids_are_dropped_from_results() -> None:
    _decides(_relevant(["no-peat", "rain-barrel"]), ("rain-barrel",), ("no-peat", "rain-barrel"))


def test_ids_outside_the_seed_are_dropped() -> None:
    _decides(_relevant(["made-up", "rain-barrel"]), ("rain-barrel",), ("made-up", "rain-barrel"))


def test_results_are_not_filtered_for_liveness_or_user() -> None:
    # The adapter trusts the system: a superseded or another user's belief it returns is kept.
    _decides(_relevant(["wheelbarrow", "bea-shed"]), ("wheelbarrow", "bea-shed"), ())


def test_relations_pull_in_their_participants() -> None:
    _decides(_relevant(["bin-feeds-barrel"]), ("bin-feeds-barrel", "compost-bin", "rain-barrel"), ("bin-feeds-barrel",))


def test_participants_must_share_user_and_scope() -> None:
    _decides(
        _relevant(["barrel-mixed"]),
        ("barrel-mixed", "rain-barrel"),
        ("barrel-mixed", "sourdough", "bea-shed", "rain-barrel"),
    )


def test_participants_already_pinned_or_found_are_skipped() -> None:
    _decides(
        _relevant(["compost-bin", "beds-use-bin"]),
        ("compost-bin", "beds-use-bin"),
        ("compost-bin", "beds-use-bin", "raised-beds", "compost-bin"),
    )


def test_two_relations_naming_one_participant_bring_it_twice() -> None:
    _decides(
        _relevant(["bin-feeds-barrel", "barrel-mixed"]),
        ("bin-feeds-barrel", "barrel-mixed", "compost-bin", "rain-barrel", "rain-barrel"),
        ("bin-feeds-barrel", "barrel-mixed", "compost-bin", "rain-barrel"),
    )


def test_open_question_participants_by_version() -> None:
    request = _request()
    under_published = build_context(PMB, SEED, request, [["frost-matters"]]).relevant
    under_latest = build_context(LATEST, SEED, request, [["frost-matters"]]).relevant
    _decides(under_published, ("frost-matters", "frost-date"), under_latest)
    assert under_latest == ("frost-matters",)


def test_budget_caps_pinned_first_then_relevant() -> None:
    context = build_context(PMB, SEED, _request(max_beliefs=3), [["rain-barrel", "compost-bin"]])
    # Flipped (relevant first): the searched beliefs would fill the budget before the pinned ones.
    _decides(
        (context.pinned, context.relevant),
        (("raised-beds", "no-peat"), ("rain-barrel",)),
        ((("raised-beds",)), ("rain-barrel", "compost-bin")),
    )
    tight = build_context(PMB, SEED, _request(max_beliefs=1), [["rain-barrel"]])
    assert (tight.pinned, tight.relevant) == (("raised-beds",), ())


def test_max_pinned_facts_is_not_applied() -> None:
    pinned = build_context(PMB, SEED, _request(max_pinned_facts=1), [[]]).pinned
    _decides(pinned, ("raised-beds", "no-peat"), ("raised-beds",))


def test_questions_are_capped_by_max_questions() -> None:
    _decides(build_context(PMB, SEED, _request(max_questions=0), [[]]).open_questions, (), ("which-tomato",))


def test_per_scope_results_merge_rank_by_rank() -> None:
    request = _request(scopes=(GARDEN, KITCHEN))
    ranked = [["compost-bin", "rain-barrel"], ["sourdough", "compost-bin"]]
    merged = build_context(LATEST, SEED, request, ranked).relevant
    _decides(merged, ("compost-bin", "sourdough", "rain-barrel"), ("compost-bin", "rain-barrel", "sourdough"))
    capped = build_context(LATEST, SEED, replace(request, budget=ContextBudget(max_beliefs=4)), ranked)
    # Two pinned in garden, one in kitchen: three of four places gone, one merged result left.
    assert capped.relevant == ("compost-bin",)


def test_add_text_is_name_aliases_content_and_rationale() -> None:
    body = add_body(PMB, BY_ID["raised-beds"], AdapterKind.STATIC, "less bending")
    # Flipped (the `content` text form): the name and aliases would not be searchable.
    _decides(body["text"], "raised_beds beds planters about raised-beds less bending", "about raised-beds")


def test_static_and_session_metadata() -> None:
    memory = BY_ID["old-hoe"]
    assert add_body(PMB, memory, AdapterKind.STATIC)["metadata"] == {"beliefId": "old-hoe", "scope": GARDEN}
    assert add_body(PMB, memory, AdapterKind.SESSION)["metadata"] == {
        "beliefId": "old-hoe",
        "scope": [GARDEN],
        "type": "preference",
        "pinned": True,
        "superseded_by": "raised-beds",
    }


def test_aliases_ride_along_by_version() -> None:
    memory = BY_ID["raised-beds"]
    _decides("aliases" in add_body(PMB, memory, AdapterKind.STATIC), False, True)
    assert add_body(LATEST, memory, AdapterKind.STATIC)["aliases"] == ["beds", "planters"]
    assert "aliases" not in ingest_call(memory).body  # type: ignore[operator]


def test_seed_calls_reset_add_and_wait_where_declared() -> None:
    seed = SEED[:2]
    waits = ProviderConfig(wait_after_seed=True)
    calls = seed_calls(LATEST, seed, AdapterKind.STATIC, waits, {"raised-beds": "less bending"})
    assert [(c.method, c.path) for c in calls] == [
        ("DELETE", "/reset"),
        ("POST", "/add"),
        ("POST", "/add"),
        ("POST", "/wait"),
    ]
    assert calls[1].body is not None
    assert calls[1].body["text"].endswith("less bending")
    _decides(seed_calls(LATEST, seed, AdapterKind.STATIC, ProviderConfig())[-1], calls[2], HttpCall("POST", "/wait"))
    assert seed_calls(PMB, seed, AdapterKind.STATIC, waits)[-1].path == "/add"


@pytest.mark.parametrize(
    ("scope", "body"),
    [
        (GARDEN, {"query": "q", "user_id": USER, "limit": 5, "scope": GARDEN}),
        ((GARDEN, KITCHEN), {"query": "q", "user_id": USER, "limit": 5, "scope": [GARDEN, KITCHEN]}),
        (None, {"query": "q", "user_id": USER, "limit": 5}),
    ],
)
def test_search_body(scope: str | tuple[str, ...] | None, body: dict[str, object]) -> None:
    assert SearchRequest("q", USER, 5, scope).to_json() == body


def test_vector_reader_searches_every_scope_for_four_times_the_budget() -> None:
    request = _request(scopes=(GARDEN, KITCHEN), max_beliefs=5)
    _decides(
        search_requests(VECTOR, request, ProviderConfig()),
        (SearchRequest("garden things", USER, 20, (GARDEN, KITCHEN)),),
        (SearchRequest("garden things", USER, 5, GARDEN),),
    )


def test_vector_reader_keeps_only_live_in_scope_non_questions_of_the_user() -> None:
    ranked = ["wheelbarrow", "bea-shed", "frost-date", "sourdough", "rain-barrel"]
    under_vector = build_context(VECTOR, SEED, _request(), [ranked]).relevant
    _decides(under_vector, ("rain-barrel",), build_context(PMB, SEED, _request(), [ranked]).relevant)


# Eight live garden beliefs of the user: the candidates a kitchen request with max_beliefs 2 examines.
LIVE_GARDEN = [
    "raised-beds",
    "no-peat",
    "which-tomato",
    "frost-date",
    "compost-bin",
    "rain-barrel",
    "bin-feeds-barrel",
    "barrel-mixed",
]


def test_vector_reader_filters_within_the_first_candidates_only() -> None:
    request = _request(scopes=(KITCHEN,), max_beliefs=2)
    within = build_context(VECTOR, SEED, request, [[*LIVE_GARDEN[:7], "sourdough"]])
    beyond = build_context(VECTOR, SEED, request, [[*LIVE_GARDEN, "sourdough"]])
    # Flipped (filter before the candidate cut): the ninth candidate would still be found.
    assert within.pinned == ("cast-iron",)
    _decides(beyond.relevant, (), within.relevant)
    assert within.relevant == ("sourdough",)


def test_vector_expansion_looks_participants_up_once_in_seed_order() -> None:
    ranked = [["barrel-mixed", "bin-feeds-barrel"]]
    _decides(
        build_context(VECTOR, SEED, _request(), ranked).relevant,
        ("barrel-mixed", "bin-feeds-barrel", "compost-bin", "rain-barrel"),
        ("barrel-mixed", "bin-feeds-barrel", "rain-barrel", "compost-bin", "rain-barrel"),
    )
    assert build_context(replace(VECTOR, expansion_lookup=False), SEED, _request(), ranked).relevant[2:] == (
        "rain-barrel",
        "compost-bin",
        "rain-barrel",
    )


ALL_IDS = [m.id for m in SEED] + ["made-up"]


@given(
    st.sampled_from([PMB, LATEST, VECTOR]),
    st.lists(st.lists(st.sampled_from(ALL_IDS), max_size=12), min_size=1, max_size=2),
    st.integers(0, 6),
    st.sampled_from([(GARDEN,), (KITCHEN,), (GARDEN, KITCHEN)]),
)
def test_tiers_keep_the_budget_and_never_repeat_a_pinned_belief(
    rules: AdapterRules, ranked: list[list[str]], max_beliefs: int, scopes: tuple[str, ...]
) -> None:
    request = _request(scopes=scopes, max_beliefs=max_beliefs)
    context = build_context(rules, SEED, request, ranked)
    assert len(context.pinned) + len(context.relevant) <= max_beliefs
    assert not set(context.pinned) & set(context.relevant)
    assert set(context.relevant) <= {i for ids in ranked for i in ids} | {
        p for i in ranked for m in i if m in BY_ID for p in BY_ID[m].participants
    }
    blank = build_context(rules, SEED, replace(request, query=" "), [])
    assert blank.relevant == ()
    assert (blank.pinned, blank.open_questions) == (context.pinned, context.open_questions)
