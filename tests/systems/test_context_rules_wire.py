"""Context rules end to end: a `tenure:` suite of our own through `harness run` on a bare
wrapper, under each rule, with the exact requests PrecisionMemBench's client would send.

The fixture (four beliefs of one user, three cases) is written so that each rule decides its
cases differently (derived by hand from docs/peer-rules.md and the wrapper's plain search):

| case (what it checks)                          | system-provides-tiers | precisionmembench | @2209e60 | -vector |
|------------------------------------------------|------|------|------|------|
| pinned: the pinned belief in the pinned tier    | fail | pass | pass | pass |
| second-scope: a belief of the request's 2nd scope | pass | fail | pass | pass |
| superseded: a superseded belief the system returns | fail | fail | fail | pass |

The reference pipeline under `precisionmembench-vector` is judged the same way, around its engine
search; a second fixture (five beliefs, three cases) makes every case flip between its own tiers
and the adapter's (vector mode, where both keep every live belief of so small a seed):

| case (what it checks)                                            | own tiers | -vector |
|------------------------------------------------------------------|------|------|
| first-pinned: budget 1 keeps the first pinned in seed order, not the most recent | fail | pass |
| replaced-question: a pinned open question replaced by a decision stays out      | pass | fail |
| no-questions: the case's `maxQuestions: 0` leaves the questions tier empty       | fail | pass |
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.kinds.beliefs.context_choice import rule_of
from harness.pipeline.context_rules import ContextRuleName
from tests.reports.pages import harness
from tests.suites.tenure_fixture import belief, turn, write_tenure
from tests.systems.recording_wrapper import Recorder, recording

CODE, OPS = "domain:code", "domain:ops"


def seed() -> list[dict[str, Any]]:
    return [
        belief(
            "b-db",
            canonical_name="orders_db",
            aliases=["orders database"],
            content="Orders live in postgres.",
            why_it_matters="Checkout reads it.",
        ),
        belief(
            "b-ops",
            canonical_name="orders_runbook",
            content="The orders runbook for on-call.",
            why_it_matters="Pages at night.",
            scope=[OPS],
        ),
        belief(
            "b-pin",
            type="preference",
            canonical_name="tabs_style",
            content="Prefers tabs.",
            why_it_matters="Style.",
            pinned=True,
        ),
        belief(
            "b-old",
            type="decision",
            canonical_name="orders_in_mysql",
            content="Orders lived in mysql.",
            why_it_matters="History.",
            epistemic_status="superseded",
            superseded_by="b-db",
        ),
    ]


def case(case_id: str, scopes: list[str], query: str, expect: dict[str, Any]) -> dict[str, Any]:
    return {"caseId": case_id, "category": "Context rules", "scope": scopes, "query": query, "expect": expect}


PINNED = case("pinned", [CODE], "tabs style", {"pinnedFacts": {"mustInclude": ["b-pin"]}})
SECOND_SCOPE = case("second-scope", [CODE, OPS], "runbook", {"relevantBeliefs": {"mustInclude": ["b-ops"]}})
SUPERSEDED = case("superseded", [CODE], "where do orders live", {"relevantBeliefs": {"mustExclude": ["b-old"]}})


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("HARNESS_HTTP_WAIT_AFTER_SEED", raising=False)


def _run(tmp_path: Path, system: str, suite: Path, *rules: str, mode: str = "hybrid") -> dict[str, Any]:
    out = tmp_path / "out"
    code = harness(
        tmp_path, "run", "--system", system, "--suite", f"tenure:{suite}", "--mode", mode, "--backend", "embedded",
        *(("--context-rules", rules[0]) if rules else ()), "--out", str(out),
    )  # fmt: skip
    assert code in (0, 1)  # failed cases are a verdict, not an error
    (path,) = [p for p in out.glob("run-*.json") if "latest" not in p.name]
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    ("rule", "verdicts"),
    [
        ("system-provides-tiers", {"pinned": False, "second-scope": True, "superseded": False}),
        ("precisionmembench", {"pinned": True, "second-scope": False, "superseded": False}),
        ("precisionmembench@2209e60", {"pinned": True, "second-scope": True, "superseded": False}),
        ("precisionmembench-vector", {"pinned": True, "second-scope": True, "superseded": True}),
    ],
)
def test_each_rule_decides_its_cases(tmp_path: Path, rule: str, verdicts: dict[str, bool]) -> None:
    suite = write_tenure(tmp_path / "t", seed=seed(), static=[PINNED, SECOND_SCOPE, SUPERSEDED], sessions=False)
    with recording(Recorder()) as url:
        report = _run(tmp_path, f"http:{url}", suite, rule)
    assert {c["case_id"]: c["passed"] for c in report["cases"]} == verdicts
    assert report["meta"]["context_rules"]["name"] == rule
    assert rule_of(report) is ContextRuleName(rule)
    markdown = next(p for p in (tmp_path / "out").glob("run-*.md") if "latest" not in p.name).read_text()
    assert f"Context rules: {rule}" in markdown


def test_a_tenure_suite_on_a_system_defaults_to_precisionmembench(tmp_path: Path) -> None:
    suite = write_tenure(tmp_path / "t", seed=seed(), static=[PINNED], sessions=False)
    with recording(Recorder()) as url:
        report = _run(tmp_path, f"http:{url}", suite)
    assert report["meta"]["context_rules"]["name"] == "precisionmembench"
    assert "persona prelude" in report["meta"]["context_rules"]["prelude"]
    assert [c["passed"] for c in report["cases"]] == [True]  # the adapter supplies the pinned tier


def test_an_old_report_reads_back_as_the_system_providing_every_tier() -> None:
    assert rule_of({"meta": {"suites": []}}) is ContextRuleName.SYSTEM_PROVIDES_TIERS


def test_requests_are_those_of_precisionmembench_2209e60(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeding: one `/add` per belief in seed order (name, aliases, content and rationale as the
    text; the first scope in metadata; aliases beside), `/wait` where the wrapper needs it, then
    one search per scope. The harness's user ids carry the run's namespace, and it never calls
    `DELETE /reset` (it would clear every user's records)."""
    monkeypatch.setenv("HARNESS_HTTP_WAIT_AFTER_SEED", "1")
    recorder = Recorder()
    suite = write_tenure(tmp_path / "t", seed=seed(), static=[SECOND_SCOPE], sessions=False)
    with recording(recorder) as url:
        _run(tmp_path, f"http:{url}", suite, "precisionmembench@2209e60")
    user = recorder.sent("POST", "/add")[0][2]["user_id"]
    assert user.endswith("/u-maya")

    def add(belief_id: str, text: str, scope: str, aliases: list[str]) -> tuple[str, str, Any]:
        body = {"text": text, "user_id": user, "metadata": {"beliefId": belief_id, "scope": scope}, "aliases": aliases}
        return ("POST", "/add", body)

    def search(scope: str) -> tuple[str, str, Any]:
        return ("POST", "/search", {"query": "runbook", "user_id": user, "limit": 20, "scope": scope})

    assert recorder.sent() == [
        add("b-db", "orders_db orders database Orders live in postgres. Checkout reads it.", CODE, ["orders database"]),
        add("b-ops", "orders_runbook The orders runbook for on-call. Pages at night.", OPS, []),
        add("b-pin", "tabs_style Prefers tabs. Style.", CODE, []),
        add("b-old", "orders_in_mysql Orders lived in mysql. History.", CODE, []),
        ("POST", "/wait", None),
        search(CODE),
        search(OPS),
    ]


def test_session_requests_under_precisionmembench(tmp_path: Path) -> None:
    """The session adapter's metadata (every scope, type, pinned, supersession), no aliases and no
    `/wait` at ec8347b; a turn's created belief is sent after its checks; an alias update sends nothing."""
    created = belief("b-cache", canonical_name="orders_cache", content="Orders are cached.", why_it_matters="")
    session = {
        "caseId": "session-a",
        "turns": [
            turn(0, "establishes_topic", "orders cache", ["database"], {}, createBeliefAtTurn=created),
            turn(
                1, "drift", "orders again", ["database"], {},
                updateBeliefAtTurn={"beliefId": "b-db", "addAliases": ["order store"]},
            ),
        ],
    }  # fmt: skip
    recorder = Recorder()
    suite = write_tenure(tmp_path / "t", seed=seed()[:1], static=[], sessions=[session])
    with recording(recorder) as url:
        _run(tmp_path, f"http:{url}", suite)
    user = recorder.sent("POST", "/add")[0][2]["user_id"]

    def add(belief_id: str, text: str, kind: str) -> tuple[str, str, Any]:
        metadata = {"beliefId": belief_id, "scope": [CODE], "type": kind, "pinned": False, "superseded_by": None}
        return ("POST", "/add", {"text": text, "user_id": user, "metadata": metadata})

    def search(query: str) -> tuple[str, str, Any]:
        return ("POST", "/search", {"query": query, "user_id": user, "limit": 20, "scope": CODE})

    assert recorder.sent() == [
        add("b-db", "orders_db orders database Orders live in postgres. Checkout reads it.", "entity"),
        search("orders cache"),
        add("b-cache", "orders_cache Orders are cached.", "entity"),
        search("orders again"),
    ]


def reference_seed() -> list[dict[str, Any]]:
    """Two pinned preferences, the first in seed order reinforced earlier; a pinned open question
    replaced by a decision; a pinned open question still open."""
    return [
        belief(
            "b-tabs", type="preference", canonical_name="tabs_style", content="Prefers tabs.", pinned=True,
            last_reinforced_at="2024-01-01T00:00:00Z",
        ),
        belief(
            "b-lint", type="preference", canonical_name="lint_on_save", content="Lints on every save.", pinned=True,
            last_reinforced_at="2024-03-01T00:00:00Z",
        ),
        belief(
            "b-q-queue", type="open_question", canonical_name="which_queue", content="Kafka or SQS for orders?",
            pinned=True, superseded_by="b-queue",
        ),
        belief("b-queue", type="decision", canonical_name="orders_queue_sqs", content="Orders go through SQS."),
        belief("b-q-cache", type="open_question", canonical_name="cache_ttl", content="How long may the cache live?",
               pinned=True),
    ]  # fmt: skip


FIRST_PINNED = case("first-pinned", [CODE], "editor habits", {"pinnedFacts": {"mustInclude": ["b-tabs"]}}) | {
    "budget": {"maxBeliefs": 1}
}
REPLACED_QUESTION = case("replaced-question", [CODE], "orders queue", {"openQuestions": {"mustExclude": ["b-q-queue"]}})
NO_QUESTIONS = case("no-questions", [CODE], "cache lifetime", {"openQuestions": {"mustExclude": ["b-q-cache"]}}) | {
    "budget": {"maxQuestions": 0}
}


@pytest.mark.parametrize(
    ("rules", "verdicts"),
    [
        ((), {"first-pinned": False, "replaced-question": True, "no-questions": False}),
        (("precisionmembench-vector",), {"first-pinned": True, "replaced-question": False, "no-questions": True}),
    ],
)
def test_the_reference_under_the_vector_adapter_decides_by_its_rules(
    tmp_path: Path, rules: tuple[str, ...], verdicts: dict[str, bool]
) -> None:
    """Its own tiers: pinned by recency, supersession hides a question, no question budget. The
    vector adapter around its engine search: pinned in seed order, a pinned question shown unless
    resolved, at most the case's `maxQuestions`."""
    suite = write_tenure(
        tmp_path / "t", seed=reference_seed(), static=[FIRST_PINNED, REPLACED_QUESTION, NO_QUESTIONS], sessions=False
    )
    report = _run(tmp_path, "reference", suite, *rules, mode="vector")
    assert report["system"]["name"] == "reference"
    assert {c["case_id"]: c["passed"] for c in report["cases"]} == verdicts
    rule = rules[0] if rules else "system-provides-tiers"
    assert report["meta"]["context_rules"]["name"] == rule
    assert rule_of(report) is ContextRuleName(rule)


def test_an_http_adapter_rule_on_the_reference_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An HTTP adapter keeps whatever a provider's search returns; the reference's engine search
    filters no scope, so only the vector adapter's reader wraps it."""
    assert harness(tmp_path, "run", "--mode", "bm25", "--context-rules", "precisionmembench", "--out", "out") == 2
    assert "an HTTP adapter's rules apply to a system under test" in capsys.readouterr().err


def test_shards_under_a_rule_merge_under_it(tmp_path: Path) -> None:
    """`harness merge` builds the kind again from the shards' options: the rule they ran under."""
    suite = write_tenure(tmp_path / "t", seed=seed(), static=[PINNED, SECOND_SCOPE, SUPERSEDED], sessions=False)
    out = tmp_path / "out"
    with recording(Recorder()) as url:
        for shard in ("1/2", "2/2"):
            harness(
                tmp_path, "run", "--system", f"http:{url}", "--suite", f"tenure:{suite}", "--mode", "hybrid",
                "--context-rules", "precisionmembench-vector", "--shard", shard, "--out", str(out),
            )  # fmt: skip
    shards = sorted(out.glob("run-*shard*.json"))
    assert len(shards) == 2
    assert harness(tmp_path, "merge", *map(str, shards), "--out", str(tmp_path / "merged")) == 0
    (merged,) = [p for p in (tmp_path / "merged").glob("run-*.json") if "latest" not in p.name]
    report = json.loads(merged.read_text())
    assert report["meta"]["context_rules"]["name"] == "precisionmembench-vector"
    assert {c["case_id"]: c["passed"] for c in report["cases"]} == {
        "pinned": True,
        "second-scope": True,
        "superseded": True,
    }
