"""Tenure's rules per version (peer-formats.md section 1.7) on our own Tenure-format fixtures in
cases/tenure-format/: every case passes under its version's ruleset, and each rule decides the
cases written for it: flip that one rule and exactly those cases' verdicts turn (see each case's
`notes`). The verdicts are derived by hand from the rules, case by case, in the fixture notes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.backends.base import Backend
from harness.backends.embedded import EmbeddedBackend
from harness.backends.registry import connect
from harness.errors import CaseFileError
from harness.evaluation.judge import Breach, judge
from harness.evaluation.kinds.beliefs.reference import ReferencePort
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.runner import SuiteRunner
from harness.models import Expect, Suite, TierExpect
from harness.pipeline import Context, Mode, PipelineSettings
from harness.pipeline.query_cleanup import QueryCleanup
from harness.pipeline.ruleset import (
    TENURE_HEAD_RULES,
    TENURE_PAPER_RULES,
    CaseKind,
    MutationTiming,
    PinnedOrder,
    Ruleset,
    ruleset,
)
from harness.suites import load_suite
from harness.suites.resolve import cases_dir

from .tenure_fixture import static_cases, write_tenure

FORMAT = cases_dir() / "tenure-format"
RULES = {"paper": TENURE_PAPER_RULES, "head": TENURE_HEAD_RULES}


def load(version: str) -> Suite:
    return load_suite(f"tenure:{FORMAT / version}")


def run(suite: Suite, rules: Ruleset | None = None, backend: Backend | None = None) -> dict[str, CaseResult]:
    backend = backend or EmbeddedBackend()
    runner = SuiteRunner(ReferencePort(backend, PipelineSettings(), None), backend.name, suite, rules=rules)
    try:
        results = [runner.run_static(case, Mode.BM25) for case in suite.static_cases]
        for position in range(len(suite.session_cases)):
            results += runner.run_session(position, [Mode.BM25])
    finally:
        runner.close()
        backend.close()
    assert all(r.error is None for r in results), [r.error for r in results if r.error]
    return {r.item_id: r for r in results}


@pytest.fixture(scope="module")
def own_rules() -> dict[str, dict[str, CaseResult]]:
    return {version: run(load(version)) for version in RULES}


# -- detection and specs ----------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["paper", "head"])
def test_version_is_detected_from_the_files(version: str) -> None:
    assert load(version).ruleset == RULES[version].name


def test_fixture_variants_detect_their_version(tmp_path: Path) -> None:
    paper = write_tenure(tmp_path / "p", static=static_cases("paper"))
    head = write_tenure(tmp_path / "h", static=static_cases("head"))
    assert load_suite(f"tenure:{paper}").ruleset == "tenure@paper"
    assert load_suite(f"tenure:{head}").ruleset == "tenure@head"


def test_spec_names_the_version_over_detection() -> None:
    assert load_suite(f"tenure@head:{FORMAT / 'paper'}").ruleset == "tenure@head"
    assert load_suite(f"tenure@paper:{FORMAT / 'head'}").ruleset == "tenure@paper"


def test_unknown_version_is_a_clear_error() -> None:
    with pytest.raises(CaseFileError, match="unknown Tenure version 'v2' \\(paper, head\\)"):
        load_suite(f"tenure@v2:{FORMAT / 'paper'}")


def test_native_suites_keep_the_builtin_rules() -> None:
    assert load_suite("builtin").ruleset == "builtin"
    assert ruleset("builtin").universal_in_every_scope


# -- every case passes under its own rules --------------------------------------------------------


@pytest.fixture(params=[pytest.param(n, marks=getattr(pytest.mark, n)) for n in ("postgres", "redis", "valkey")])
def server(request: pytest.FixtureRequest, server_url) -> Iterator[Backend]:
    backend = connect(request.param, server_url(request.param))
    yield backend
    backend.close()


@pytest.mark.parametrize("version", ["paper", "head"])
def test_every_case_and_turn_passes_under_its_versions_rules(own_rules, version: str) -> None:
    results = own_rules[version]
    assert {item: r.reasons for item, r in results.items() if not r.passed} == {}
    suite = load(version)
    assert len(results) == len(suite.static_cases) + sum(len(c.turns) for c in suite.session_cases)


@pytest.mark.parametrize("version", ["paper", "head"])
def test_every_case_and_turn_passes_on_the_servers(server: Backend, own_rules, version: str) -> None:
    """The rules live in the pipeline, so every engine gives the same verdicts and tiers."""
    results = run(load(version), backend=server)
    assert {item: r.reasons for item, r in results.items() if not r.passed} == {}
    assert {item: r.retrieved["pinned"] for item, r in results.items()} == {
        item: r.retrieved["pinned"] for item, r in own_rules[version].items()
    }
    assert {item: [x["id"] for x in r.retrieved["relevant"]] for item, r in results.items()} == {
        item: [x["id"] for x in r.retrieved["relevant"]] for item, r in own_rules[version].items()
    }


# -- one rule each: flipped, exactly its cases fail -----------------------------------------------

FLIPS: list[tuple[str, str, Any, set[str]]] = [
    # the pinned tier never holds user:universal beliefs
    ("paper", "pinned_allows_universal", True, {"pinned-skips-universal", "universal-scope-named"}),
    ("head", "pinned_allows_universal", True, {"pinned-skips-universal", "universal-scope-named"}),
    # paper: a user_edited pinned belief is pinned in every scope (and sorts first); HEAD: not
    (
        "paper",
        "pinned_user_edited_any_scope",
        False,
        {"edited-pin-crosses-scope", "pinned-in-scope", "pinned-order-under-budget"},
    ),
    (
        "head",
        "pinned_user_edited_any_scope",
        True,
        {"edited-pin-crosses-scope", "pinned-in-scope", "pinned-order-under-budget"},
    ),
    # pinned facts are filtered on liveness, not on epistemic status
    ("head", "pinned_requires_active_status", True, {"pinned-in-scope"}),
    # only superseded_by and resolved_at hide a belief, not its epistemic status
    ("paper", "superseded_status_hides", True, {"superseded-status-without-successor"}),
    ("head", "superseded_status_hides", True, {"superseded-status-without-successor"}),
    # pinned order: user_edited desc, last_reinforced_at desc
    ("paper", "pinned_order", PinnedOrder.CONFIDENCE, {"pinned-order-under-budget"}),
    ("head", "pinned_order", PinnedOrder.CONFIDENCE, {"pinned-order-under-budget"}),
    # fuzzy matching: no minimum word length; the two-character prefix guard
    ("paper", "fuzzy_min_length", 5, {"fuzzy-short-word"}),
    ("head", "fuzzy_min_length", 5, {"fuzzy-short-word"}),
    ("head", "fuzzy_prefix", 0, {"prefix-guard", "short-query-word-exact"}),
    # only one-word names and aliases match fuzzily; names of more than two words never match
    ("paper", "fuzzy_multiword", True, {"multiword-phrase-exact"}),
    ("head", "fuzzy_multiword", True, {"multiword-phrase-exact"}),
    ("paper", "phrase_max_words", None, {"three-word-name-never-matches"}),
    ("head", "phrase_max_words", None, {"three-word-name-never-matches"}),
    # subtype expertise never enters the relevant tier
    ("head", "relevant_excluded_subtypes", frozenset(), {"expertise-never-relevant"}),
    # open questions come from the pinned path only
    ("paper", "open_questions_by_query", True, {"open-question-needs-pin"}),
    # user:universal is searched only when the session's scopes name it
    ("paper", "universal_in_every_scope", True, {"universal-needs-its-scope"}),
    ("head", "universal_in_every_scope", True, {"universal-needs-its-scope"}),
    # prelude substring checks keep case (Tenure's String.includes)
    ("paper", "prelude_case_sensitive", False, {"prelude-matches-case-as-written"}),
    ("head", "prelude_case_sensitive", False, {"prelude-matches-case-as-written"}),
    # the text search reads the cleaned query: inline code stripped; HEAD also drops code lines and
    # searches a message left with little prose by its code's language
    ("paper", "query_cleanup", QueryCleanup.NONE, {"inline-code-not-searched"}),
    ("paper", "query_cleanup", QueryCleanup.STRIP_CODE_AND_NOISE, {"code-message-searched-by-language"}),
    ("head", "query_cleanup", QueryCleanup.NONE, {"inline-code-not-searched", "code-message-searched-by-language"}),
    ("head", "query_cleanup", QueryCleanup.STRIP_NOISE, {"code-message-searched-by-language"}),
    # session creates and updates apply after the turn's retrieval and checks
    ("paper", "mutations", MutationTiming.BEFORE_RETRIEVAL, {"rollout#1", "rollout#2"}),
    ("head", "mutations", MutationTiming.BEFORE_RETRIEVAL, {"rollout#1", "rollout#2"}),
    # session mustInclude/mustExclude/noise look at relevant and pinned; HEAD's static checks too
    ("paper", "union_checks", frozenset(), {"rollout#2"}),
    ("head", "union_checks", frozenset({CaseKind.SESSION}), {"relevant-checks-include-pinned"}),
    ("head", "union_checks", frozenset({CaseKind.STATIC}), {"rollout#2"}),
]


@pytest.mark.parametrize(
    ("version", "field", "flipped", "cases"),
    FLIPS,
    ids=[f"{version}-{field}-{i}" for i, (version, field, _, _) in enumerate(FLIPS)],
)
def test_each_rule_decides_its_cases(own_rules, version: str, field: str, flipped: Any, cases: set[str]) -> None:
    assert all(own_rules[version][item].passed for item in cases)
    changed = run(load(version), replace(RULES[version], **{field: flipped}))
    assert {item for item, r in changed.items() if not r.passed} == cases


# -- what the rules leave in each tier ------------------------------------------------------------


def tiers(result: CaseResult) -> tuple[list[str], list[str], list[str]]:
    retrieved = result.retrieved
    return [r["id"] for r in retrieved["relevant"]], retrieved["pinned"], retrieved["open_questions"]


def test_pinned_tiers_per_version(own_rules) -> None:
    paper, head = own_rules["paper"], own_rules["head"]
    # user_edited first, then by last reinforcement; b-monorepo is inferred and still pinned
    assert tiers(paper["pinned-in-scope"])[1] == ["b-deploy-freeze", "b-ci-matrix", "b-lint-rules", "b-monorepo"]
    assert tiers(head["pinned-in-scope"])[1] == ["b-ci-matrix", "b-lint-rules", "b-monorepo"]
    assert tiers(paper["edited-pin-crosses-scope"])[1] == ["b-deploy-freeze"]
    assert tiers(head["edited-pin-crosses-scope"])[1] == []
    # the universal belief is relevant when named and in scope, never pinned
    relevant, pinned, _ = tiers(head["universal-scope-named"])
    assert relevant == ["b-plain-english"]
    assert "b-plain-english" not in pinned
    assert paper["pinned-order-under-budget"].retrieved["evicted"] == ["b-ci-matrix", "b-lint-rules", "b-monorepo"]


def test_session_mutations_are_seen_from_the_next_turn(own_rules) -> None:
    for results in own_rules.values():
        assert tiers(results["rollout#1"])[0] == []
        assert tiers(results["rollout#2"])[0] == ["b-flags"]
        assert tiers(results["rollout#3"])[0] == ["b-payments"]
        assert sorted(tiers(results["after-rollout#0"])[0]) == ["b-flags", "b-payments"]


# -- the judge's union of relevant and pinned -----------------------------------------------------


def _context(relevant: tuple[str, ...], pinned: tuple[str, ...]) -> Context:
    from harness.pipeline import Retrieved

    return Context(
        prelude=None,
        pinned=pinned,
        relevant=tuple(Retrieved(i, n, 1.0, (), i, "lexical") for n, i in enumerate(relevant, 1)),
        open_questions=(),
        evicted=(),
        tokens=0,
    )


def test_union_judging_covers_membership_and_noise_not_the_exact_set() -> None:
    context = _context(("b-a",), ("b-pinned",))
    include = Expect(relevant=TierExpect(must_include=("b-pinned",)))
    exclude = Expect(relevant=TierExpect(must_exclude=("b-pinned",)))
    exact = Expect(relevant=TierExpect(should_only_include=("b-a",)))
    noise = Expect.model_validate({"noise": {"must_not_surface": ["b-pinned"]}})
    assert judge(include, context, union=True) == []
    assert judge(include, context) == [Breach("relevant", missing=("b-pinned",))]
    assert judge(exclude, context, union=True) == [Breach("relevant ∪ pinned", surfaced=("b-pinned",), banned=True)]
    assert judge(exclude, context) == []
    assert judge(exact, context, union=True) == judge(exact, context) == []
    assert judge(noise, context, union=True) == [Breach("noise", surfaced=("b-pinned",), banned=True)]
    assert judge(noise, context) == []


def test_prelude_checks_keep_case_only_under_tenure_rules() -> None:
    context = Context(prelude="Prefers Tabs.", pinned=(), relevant=(), open_questions=(), evicted=(), tokens=0)
    expect = Expect.model_validate({"prelude": {"contains": ["tabs"], "must_not_contain": ["prefers"]}})
    assert judge(expect, context) == [Breach("prelude", prelude="must not contain 'prefers'")]
    assert judge(expect, context, case_sensitive_prelude=True) == [Breach("prelude", prelude="should contain 'tabs'")]
