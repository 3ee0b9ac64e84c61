"""The Tenure / PrecisionMemBench importer on invented fixtures in the documented layout:
field-by-field mapping, fixture discovery, errors in the fixtures' own names, and an end-to-end
bm25 run whose verdicts are derived by hand from cases/README.md (see tenure_fixture.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from harness.backends.embedded import EmbeddedBackend
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.runner import execute
from harness.models import AliasUpdate, MemoryType, Status, Suite, TurnLabel
from harness.pipeline import Mode
from harness.suites import load_suite
from harness.suites.tenure import load_tenure

from .messages import assert_names, load_error
from .tenure_fixture import (
    STAMP,
    STATIC_VERDICTS,
    TURN_DRIFT,
    TURN_VERDICTS,
    belief,
    beliefs,
    session_cases,
    static_cases,
    write_tenure,
)


@pytest.fixture
def tenure_dir(tmp_path: Path) -> Path:
    return write_tenure(tmp_path / "tenure")


@pytest.fixture
def suite(tenure_dir: Path) -> Suite:
    return load_suite(f"tenure:{tenure_dir}")


# -- mapping --------------------------------------------------------------------------------------


def test_corpus_default_user_is_the_majority_user(suite: Suite) -> None:
    assert suite.corpus.default_user == "u-maya"
    assert len(suite.corpus.memories) == 10
    assert [m.id for m in suite.corpus.memories] == [b["_id"] for b in beliefs()]


def test_belief_fields_map_onto_memories(suite: Suite) -> None:
    memories = {m.id: m for m in suite.corpus.memories}

    pg = memories["b-postgres"]
    assert pg.user == "u-maya"
    assert pg.type is MemoryType.ENTITY
    assert pg.name == "postgres_database"
    assert pg.aliases == ("postgres", "pg cluster")
    assert pg.content == "Payload of b-postgres."
    assert pg.scopes == ("domain:code",)
    assert pg.status is Status.ACTIVE
    assert pg.pinned is False
    assert pg.confidence == 0.9
    assert pg.reinforcement_count == 1
    assert pg.created_at == datetime(2024, 2, 1, 9, 0, tzinfo=UTC)
    assert pg.injectable

    ts = memories["b-strict-ts"]
    assert ts.type is MemoryType.PREFERENCE
    assert ts.pinned
    assert ts.confidence == 0.95
    assert ts.reinforcement_count == 3

    mysql = memories["b-mysql-old"]
    assert mysql.type is MemoryType.DECISION
    assert mysql.status is Status.SUPERSEDED
    assert mysql.superseded_by == "b-postgres"
    assert not mysql.injectable

    orm = memories["b-oq-orm"]
    assert orm.type is MemoryType.OPEN_QUESTION
    assert orm.aliases == ("which orm",)
    assert orm.resolved_at == datetime(2024, 3, 1, tzinfo=UTC)
    assert not orm.injectable
    assert memories["b-oq-hosting"].resolved_at is None
    assert memories["b-oq-hosting"].injectable

    rel = memories["b-rel-billing-db"]
    assert rel.type is MemoryType.RELATION
    assert rel.relation_type == "depends_on"
    assert rel.participants == ("b-api", "b-postgres")

    concise = memories["b-pref-concise"]
    assert concise.scopes == ("user:universal",)
    assert concise.pinned
    assert concise.confidence == 0.99

    assert memories["b-pref-oxford"].scopes == ("domain:writing",)
    theo = memories["b-theo-postgres"]
    assert theo.user == "u-theo"
    assert theo.name == "postgres_database"


def test_static_cases_map_field_by_field(suite: Suite) -> None:
    cases = {c.id: c for c in suite.static_cases}
    assert list(cases) == [c["caseId"] for c in static_cases()]

    alias = cases["alias-postgres"]
    assert alias.category == "Alias resolution"
    assert alias.description == "A plain alias resolves to its entity."
    assert alias.user is None
    assert alias.scopes == ("domain:code",)
    assert alias.query == "Why is postgres slow on the orders table?"
    assert alias.budget is None
    assert alias.expect.relevant.should_only_include == ("b-postgres",)
    assert alias.expect.relevant.must_include == ()
    assert alias.expect.relevant.must_exclude == ()
    assert alias.expect.pinned.must_include == ("b-strict-ts",)
    assert alias.expect.pinned.must_exclude == ("b-pref-concise",)
    assert alias.expect.pinned.should_only_include is None
    assert alias.expect.open_questions is None
    assert alias.expect.prelude is None
    assert alias.expect.noise is None

    # paper tag style: no category; the `_note` annotation is dropped, the assertion kept
    mysql = cases["supersession-mysql"]
    assert mysql.category == "uncategorized"
    assert mysql.expect.relevant.should_only_include == ("b-mysql-old",)
    assert cases["relation-expansion"].category == "uncategorized"

    theo = cases["cross-user-theo"]
    assert theo.user == "u-theo"
    assert theo.expect.pinned.must_exclude == ("b-strict-ts",)
    assert theo.expect.prelude.is_null is True

    budget = cases["budget-one"]
    assert budget.budget is not None
    assert budget.budget.max_beliefs == 1
    assert budget.expect.relevant.should_only_include == ()  # empty list kept: nothing may surface

    prelude = cases["prelude-writing"].expect.prelude
    assert cases["prelude-writing"].query == ""
    assert prelude.non_empty is True
    assert prelude.contains == (
        "oxford comma",
        "SHORT",
    )
    assert prelude.must_not_contain == ("strict mode",)

    questions = cases["questions-resolved"].expect.open_questions
    assert questions.must_include == ("b-oq-hosting",)
    assert questions.must_exclude == ("b-oq-orm",)


def test_session_cases_map_turns_mutations_and_hoisted_pinned(suite: Suite) -> None:
    assert [c.id for c in suite.session_cases] == ["session-a", "session-b"]
    a, b = suite.session_cases
    assert a.description == "Database topic, drift to caching and billing, re-entry."
    assert [t.index for t in a.turns] == [0, 1, 2, 3]
    assert [t.label for t in a.turns] == [
        TurnLabel.ESTABLISHES_TOPIC,
        TurnLabel.DRIFT,
        TurnLabel.DRIFT,
        TurnLabel.RE_ENTRY,
    ]
    t0, t1, t2, t3 = a.turns
    assert t0.scopes == ("domain:code",)
    assert t0.message == "The postgres pool is exhausted again"
    assert t0.topics == ("database",)
    assert t0.expect.open_questions.must_include == ("b-oq-hosting",)

    created = t1.create
    assert created is not None
    assert created.id == "b-redis"
    assert created.user == "u-maya"
    assert created.name == "redis_cache"
    assert created.aliases == ("redis",)
    assert created.scopes == ("domain:code",)
    assert t1.expect.noise.must_not_surface == ("b-postgres",)
    assert t1.update is None

    assert t2.update == AliasUpdate(memory_id="b-api", add_aliases=("billing gateway", "payments edge"))
    assert t2.create is None
    assert t2.expect.relevant.should_only_include == ()

    # the documented misnesting: relevantBeliefs.pinnedFacts is the turn's pinned tier
    assert t3.expect.relevant.should_only_include == ("b-postgres", "b-api")
    assert t3.expect.pinned is not None
    assert t3.expect.pinned.must_include == ("b-strict-ts",)

    assert len(b.turns) == 1
    assert b.turns[0].expect.relevant.should_only_include == ("b-redis",)


def test_fixtures_one_folder_below_the_given_dir(tmp_path: Path) -> None:
    write_tenure(tmp_path / "checkout" / "fixtures")
    (tmp_path / "checkout" / "README.md").write_text("a checkout\n")
    suite = load_suite(f"tenure:{tmp_path / 'checkout'}")
    assert len(suite.static_cases) == 7
    assert len(suite.session_cases) == 2


def test_session_file_is_optional(tmp_path: Path) -> None:
    suite = load_tenure(write_tenure(tmp_path / "t", sessions=False))
    assert suite.session_cases == ()
    assert len(suite.static_cases) == 7


# -- discovery errors -------------------------------------------------------------------------------


def test_several_fixture_folders_is_a_clear_error(tmp_path: Path) -> None:
    write_tenure(tmp_path / "checkout" / "paper")
    write_tenure(tmp_path / "checkout" / "head")
    message = load_error(load_tenure, tmp_path / "checkout")
    assert_names(
        message,
        str(tmp_path / "checkout" / "paper"),
        str(tmp_path / "checkout" / "head"),
    )


def test_no_fixtures_below_the_dir(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert_names(load_error(load_tenure, tmp_path / "empty"), str(tmp_path / "empty"), "beliefs.seed.json")


def test_missing_dir(tmp_path: Path) -> None:
    assert_names(load_error(load_tenure, tmp_path / "absent"), str(tmp_path / "absent"))


def test_missing_static_file(tmp_path: Path) -> None:
    folder = write_tenure(tmp_path / "t", static=False)
    assert_names(load_error(load_tenure, folder), str(folder / "retrieval.cases.json"))


def test_malformed_seed_json(tmp_path: Path) -> None:
    folder = write_tenure(tmp_path / "t")
    (folder / "beliefs.seed.json").write_text('[\n  {"_id": "b-x"\n]\n', encoding="utf-8")
    # line 3 column 1: the `]` where a `,` or `}` was expected
    assert_names(load_error(load_tenure, folder), str(folder / "beliefs.seed.json"), "line 3", "column 1")


def test_empty_seed(tmp_path: Path) -> None:
    folder = write_tenure(tmp_path / "t", seed=[], static=[], sessions=False)
    assert_names(load_error(load_tenure, folder), str(folder / "beliefs.seed.json"))


# -- record errors in the fixtures' own field names -----------------------------------------------


def _static_with(case_id: str, change) -> list[dict[str, Any]]:
    cases = static_cases()
    change(next(c for c in cases if c["caseId"] == case_id))
    return cases


def test_unknown_belief_in_should_only_include(tmp_path: Path) -> None:
    def change(case: dict[str, Any]) -> None:
        case["expect"]["relevantBeliefs"]["shouldOnlyInclude"] = ["b-ghost"]

    folder = write_tenure(tmp_path / "t", static=_static_with("alias-postgres", change))
    assert_names(
        load_error(load_tenure, folder),
        str(folder / "retrieval.cases.json"),
        "alias-postgres",
        "relevantBeliefs",
        "shouldOnlyInclude",
        "b-ghost",
    )


def test_unknown_belief_in_pinned_facts(tmp_path: Path) -> None:
    def change(case: dict[str, Any]) -> None:
        case["expect"]["pinnedFacts"]["mustExclude"] = ["b-ghost"]

    folder = write_tenure(tmp_path / "t", static=_static_with("budget-one", change))
    assert_names(load_error(load_tenure, folder), "budget-one", "pinnedFacts", "mustExclude", "b-ghost")


def test_unknown_field_in_a_case(tmp_path: Path) -> None:
    def change(case: dict[str, Any]) -> None:
        case["expect"]["relevantBeliefs"] = {"shoudOnlyInclude": ["b-api"]}

    folder = write_tenure(tmp_path / "t", static=_static_with("relation-expansion", change))
    assert_names(
        load_error(load_tenure, folder),
        str(folder / "retrieval.cases.json"),
        "relation-expansion",
        "shoudOnlyInclude",
    )


def test_negative_budget(tmp_path: Path) -> None:
    def change(case: dict[str, Any]) -> None:
        case["budget"] = {"maxBeliefs": -1}

    folder = write_tenure(tmp_path / "t", static=_static_with("budget-one", change))
    assert_names(load_error(load_tenure, folder), "budget-one", "maxBeliefs")


def test_every_budget_field_is_kept(tmp_path: Path) -> None:
    """PrecisionMemBench's runners pass a case's whole `ContextBudget` to `buildContext`."""

    def change(case: dict[str, Any]) -> None:
        case["budget"] = {"maxBeliefs": 3, "maxPinnedFacts": 2, "maxQuestions": 0}

    folder = write_tenure(tmp_path / "t", static=_static_with("budget-one", change))
    budget = next(c for c in load_tenure(folder).static_cases if c.id == "budget-one").budget
    assert budget is not None
    assert (budget.max_beliefs, budget.max_pinned_facts, budget.max_questions) == (3, 2, 0)


def test_unknown_field_in_a_belief(tmp_path: Path) -> None:
    seed = beliefs()
    seed[0]["canonicalName"] = "typo"
    folder = write_tenure(tmp_path / "t", seed=seed)
    assert_names(
        load_error(load_tenure, folder),
        str(folder / "beliefs.seed.json"),
        "b-postgres",
        "canonicalName",
    )


def test_bad_belief_type_names_the_belief_and_the_field(tmp_path: Path) -> None:
    seed = beliefs()
    seed[5]["type"] = "opinion"
    folder = write_tenure(tmp_path / "t", seed=seed)
    assert_names(load_error(load_tenure, folder), str(folder / "beliefs.seed.json"), "b-api", "type")


def test_bad_belief_scope_names_the_belief_and_the_field(tmp_path: Path) -> None:
    seed = beliefs()
    seed[0]["scope"] = ["code"]
    folder = write_tenure(tmp_path / "t", seed=seed)
    assert_names(load_error(load_tenure, folder), str(folder / "beliefs.seed.json"), "b-postgres", "scope")


def test_bad_case_scope_names_the_case_and_the_field(tmp_path: Path) -> None:
    """A query scope that is not `domain:<x>` / `user:universal` can match nothing: refuse it."""

    def change(case: dict[str, Any]) -> None:
        case["scope"] = ["code"]

    folder = write_tenure(tmp_path / "t", static=_static_with("alias-postgres", change))
    assert_names(
        load_error(load_tenure, folder),
        str(folder / "retrieval.cases.json"),
        "alias-postgres",
        "scope",
    )


def test_bad_epistemic_status_names_the_field(tmp_path: Path) -> None:
    seed = beliefs()
    seed[0]["epistemic_status"] = "retired"
    folder = write_tenure(tmp_path / "t", seed=seed)
    assert_names(load_error(load_tenure, folder), "b-postgres", "epistemic_status")


def test_duplicate_belief_id(tmp_path: Path) -> None:
    seed = [*beliefs(), belief("b-api", canonical_name="another_api")]
    folder = write_tenure(tmp_path / "t", seed=seed)
    assert_names(load_error(load_tenure, folder), str(folder / "beliefs.seed.json"), "b-api")


def test_unknown_successor(tmp_path: Path) -> None:
    seed = beliefs()
    seed[2]["superseded_by"] = "b-ghost"
    folder = write_tenure(tmp_path / "t", seed=seed)
    assert_names(load_error(load_tenure, folder), "b-mysql-old", "superseded_by", "b-ghost")


def test_duplicate_case_id(tmp_path: Path) -> None:
    cases = static_cases()
    cases[1]["caseId"] = "alias-postgres"
    folder = write_tenure(tmp_path / "t", static=cases)
    assert_names(load_error(load_tenure, folder), str(folder / "retrieval.cases.json"), "alias-postgres")


def test_update_of_an_unknown_belief(tmp_path: Path) -> None:
    sessions = session_cases()
    sessions[0]["turns"][2]["updateBeliefAtTurn"]["beliefId"] = "b-ghost"
    folder = write_tenure(tmp_path / "t", sessions=sessions)
    assert_names(
        load_error(load_tenure, folder),
        str(folder / "session-retrieval.cases.json"),
        "session-a",
        "beliefId",
        "b-ghost",
    )


def test_unknown_belief_in_must_not_surface(tmp_path: Path) -> None:
    sessions = session_cases()
    sessions[1]["turns"][0]["expect"]["noiseCheck"]["mustNotSurface"] = ["b-ghost"]
    folder = write_tenure(tmp_path / "t", sessions=sessions)
    assert_names(load_error(load_tenure, folder), "session-b", "mustNotSurface", "b-ghost")


def test_bad_turn_label_names_the_case_and_the_field(tmp_path: Path) -> None:
    sessions = session_cases()
    sessions[0]["turns"][1]["label"] = "topic_drift"
    folder = write_tenure(tmp_path / "t", sessions=sessions)
    assert_names(
        load_error(load_tenure, folder),
        str(folder / "session-retrieval.cases.json"),
        "session-a",
        "label",
    )


def test_non_empty_should_retrieve_turns_is_refused(tmp_path: Path) -> None:
    sessions = session_cases()
    sessions[0]["turns"][2]["expect"]["topicRetrieval"]["shouldRetrieveTurns"] = [0]
    folder = write_tenure(tmp_path / "t", sessions=sessions)
    assert_names(load_error(load_tenure, folder), "session-a", "shouldRetrieveTurns")


def test_later_session_case_may_name_a_belief_created_earlier(tmp_path: Path) -> None:
    """session-b names b-redis, which only session-a creates: valid (state carries over)."""
    suite = load_tenure(write_tenure(tmp_path / "t"))
    assert "b-redis" not in {m.id for m in suite.corpus.memories}
    assert suite.session_cases[1].turns[0].expect.relevant.should_only_include == ("b-redis",)


def test_session_case_may_not_name_a_belief_created_later(tmp_path: Path) -> None:
    folder = write_tenure(tmp_path / "t", sessions=list(reversed(session_cases())))
    assert_names(load_error(load_tenure, folder), "session-b", "b-redis")


# -- end to end, bm25 -----------------------------------------------------------------------------


@pytest.fixture
def bm25_results(suite: Suite):
    backend = EmbeddedBackend()
    try:
        return execute(Plan([suite], [Mode.BM25]), backend, None)
    finally:
        backend.close()


def test_bm25_verdicts_match_the_tenure_head_rules(bm25_results) -> None:
    assert all(r.error is None for r in bm25_results), [r.error for r in bm25_results if r.error]
    static = {r.case_id: r.passed for r in bm25_results if r.kind == "static"}
    turns = {(r.case_id, r.turn): r.passed for r in bm25_results if r.kind == "session"}
    assert static == STATIC_VERDICTS
    assert turns == TURN_VERDICTS


def test_bm25_drift_per_turn(bm25_results) -> None:
    drift = {(r.case_id, r.turn): r.drift for r in bm25_results if r.kind == "session"}
    assert drift == pytest.approx(TURN_DRIFT)


def test_bm25_tiers_of_selected_cases(bm25_results) -> None:
    by_id = {r.item_id: r for r in bm25_results}

    def relevant(item: str) -> list[str]:
        return [row["id"] for row in by_id[item].retrieved["relevant"]]

    # the universal pinned belief is never a pinned fact; the code-scope one is
    assert by_id["alias-postgres"].retrieved["pinned"] == ["b-strict-ts"]
    assert relevant("alias-postgres") == ["b-postgres"]
    # the prelude holds both preferences, and the checks keep case: only the two case mismatches fail
    assert by_id["prelude-writing"].reasons == [
        "prelude: persona prelude: should contain 'oxford comma'",
        "prelude: persona prelude: should contain 'SHORT'",
    ]
    # the superseded belief is reported missing
    assert relevant("supersession-mysql") == []
    assert any("b-mysql-old" in reason for reason in by_id["supersession-mysql"].reasons)
    # the relation ranks first; its participants follow it
    assert relevant("relation-expansion")[0] == "b-rel-billing-db"
    assert set(relevant("relation-expansion")[1:]) == {"b-api", "b-postgres"}
    # budget 1: everything but the first pinned belief is evicted and reported
    assert by_id["budget-one"].retrieved["pinned"] == ["b-strict-ts"]
    assert set(by_id["budget-one"].retrieved["evicted"]) == {"b-postgres", "b-api"}
    # the second user sees his own belief only, with no prelude
    assert relevant("cross-user-theo") == ["b-theo-postgres"]
    assert by_id["cross-user-theo"].retrieved["prelude"] is None
    assert by_id["cross-user-theo"].user == "u-theo"
    # resolved questions never surface, pinned unresolved ones always do
    assert by_id["questions-resolved"].retrieved["open_questions"] == ["b-oq-hosting"]
    # session: a turn's create/update is seen from the next turn on
    assert relevant("session-a#1") == ["b-postgres"]
    assert relevant("session-a#2") == []
    assert set(relevant("session-a#3")) == {"b-postgres", "b-api"}
    assert relevant("session-b#0") == ["b-redis"]


def test_new_belief_fields_are_kept(tmp_path: Path) -> None:
    seed = [
        *beliefs(),
        belief(
            "b-expert",
            type="preference",
            subtype="expertise",
            expertise_domain="databases",
            expertise_depth="deep",
            user_edited=True,
            last_reinforced_at="2024-06-02T08:30:00Z",
        ),
    ]
    memories = {m.id: m for m in load_tenure(write_tenure(tmp_path / "t", seed=seed)).corpus.memories}
    expert = memories["b-expert"]
    assert expert.subtype == "expertise"
    assert expert.user_edited is True
    assert expert.last_reinforced_at == datetime(2024, 6, 2, 8, 30, tzinfo=UTC)
    assert memories["b-strict-ts"].subtype == "style"
    assert memories["b-pref-concise"].user_edited is True
    assert memories["b-postgres"].subtype is None
    assert memories["b-postgres"].user_edited is False
    assert memories["b-postgres"].rationale == "Not searched."  # kept: PrecisionMemBench's adapter sends it


def test_dropped_fields_are_warned_with_their_counts(tmp_path: Path) -> None:
    seed = [*beliefs(), belief("b-expert", expertise_domain="databases", change_log=[{"at": STAMP}])]
    warnings = load_tenure(write_tenure(tmp_path / "t", seed=seed)).warnings
    assert (
        "beliefs.seed.json: drops `expertise_domain` (1 of 11 beliefs): calibration metadata, not read by retrieval"
        in (warnings)
    )
    assert any(w.startswith("beliefs.seed.json: drops `change_log` (1 of 11 beliefs)") for w in warnings)
    assert any(w.startswith("retrieval.cases.json: drops `notes` (1 of 7 cases)") for w in warnings)
    assert any(w.startswith("session-retrieval.cases.json: drops `turnSignal` (5 of 5 turns)") for w in warnings)
    # empty values carry nothing, so nothing is lost: the 11 empty change logs are not counted
    assert not any("expertise_depth" in w for w in warnings)
    # every field with retrieval meaning is kept, so never warned about
    for kept in ("subtype", "user_edited", "pinned", "scope", "resolved_at", "superseded_by", "type", "why_it_matters"):
        assert not any(f"`{kept}`" in w for w in warnings)


def test_seed_file_is_not_modified(tenure_dir: Path) -> None:
    before = {p.name: p.read_bytes() for p in tenure_dir.iterdir()}
    load_tenure(tenure_dir)
    assert {p.name: p.read_bytes() for p in tenure_dir.iterdir()} == before
    assert json.loads(before["beliefs.seed.json"])[0]["_id"] == "b-postgres"
