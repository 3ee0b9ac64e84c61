"""What the built-in scenarios are written to show, checked on the embedded backend: chains
that only spread activation reaches, duplicates merged into what they restate, the phases and
the cycle count, and a report that carries every setting and fails a gate the user set on a FAIL grade."""

from __future__ import annotations

import re

import pytest

from harness.evaluation.kinds.lifecycle.spec import LifecycleKind
from harness.metrics.grades import Grade
from harness.models.memory import Label
from harness.models.scenario import LifecycleSuite, Scenario
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.settings import Mode
from harness.reports.escape import md
from harness.text import content_terms
from tests.lifecycle.conftest import WordHashEmbedder
from tests.lifecycle.helpers import run_kind

CHAIN_ENDS = {
    "why does the month-end invoice PDF batch take so long": "hop-a3",
    "why can some users not sign in after the SSO migration": "hop-b3",
}
"""Two hops down a caused_by chain from the memory the query names."""


def _only(suite: LifecycleSuite, name: str) -> LifecycleSuite:
    return LifecycleSuite(suite.name, tuple(s for s in suite.scenarios if s.name == name), suite.max_results)


def _returned(result, when: str) -> dict[str, list[str]]:
    return {q["query"]: [r["id"] for r in q[when]] for q in result.queries}


def test_chain_ends_share_no_word_with_their_queries(builtin_suite) -> None:
    (scenario,) = _only(builtin_suite, "multi-hop-chains").scenarios
    memories = {m.id: m for m in scenario.memories}
    for query, end in CHAIN_ENDS.items():
        assert not set(content_terms(query)) & set(content_terms(memories[end].text)), end


@pytest.mark.parametrize("hops", [0, 3])
def test_only_spread_activation_reaches_the_end_of_a_chain(builtin_suite, committed_embedder, embedded, hops) -> None:
    kind = LifecycleKind(_only(builtin_suite, "multi-hop-chains"), committed_embedder, LifecycleSettings(max_hops=hops))
    (result,) = run_kind(kind, embedded, [Mode.BM25])[0]
    for when in ("before", "after"):
        returned = _returned(result, when)
        for query, end in CHAIN_ENDS.items():
            assert (end in returned[query]) is (hops > 0), (when, query, returned[query])


def test_duplicates_merge_into_what_they_restate_and_no_signal_merges(
    builtin_suite, committed_embedder, embedded
) -> None:
    kind = LifecycleKind(_only(builtin_suite, "design-decisions-event-feed"), committed_embedder)
    results, _ = run_kind(kind, embedded)
    (scenario,) = kind.suite.scenarios
    duplicates = {m.id: m.duplicate_of for m in scenario.memories if m.label is Label.DUPLICATE}
    assert len(duplicates) == 3
    for result in results:
        assert {d: result.merged_into.get(d) for d in duplicates} == duplicates, result.mode
        signal = [m.id for m in scenario.memories if m.label is Label.SIGNAL]
        assert all(result.states[i] != "merged" for i in signal), result.mode
        assert result.lifecycle["dedup"] == 1.0


def test_raw_events_under_the_encoding_gate_never_become_memories(builtin_suite, committed_embedder, embedded) -> None:
    settings = LifecycleSettings()
    kind = LifecycleKind(_only(builtin_suite, "raw-events-rates-workday"), committed_embedder, settings)
    (result,) = run_kind(kind, embedded, [Mode.BM25])[0]
    (scenario,) = kind.suite.scenarios
    gated = {e.id for e in scenario.raw_events if (e.heuristic_score or 0) < settings.encode_threshold}
    assert gated
    assert set(result.states) == {e.id for e in scenario.raw_events} - gated
    assert {e.source for e in scenario.raw_events} == {"filesystem", "terminal", "mcp", "clipboard"}


@pytest.mark.parametrize("cycles", [0, 2, 5])
def test_the_cycle_count_is_a_setting(builtin_suite, committed_embedder, embedded, cycles: int) -> None:
    kind = LifecycleKind(_only(builtin_suite, "lessons-on-call"), committed_embedder, LifecycleSettings(cycles=cycles))
    (result,) = run_kind(kind, embedded, [Mode.BM25])[0]
    assert [c["at"] for c in result.cycles] == [60.0 * (i + 1) for i in range(cycles)]
    if cycles == 0:  # nothing consolidated: every memory keeps its seeded state
        assert set(result.states.values()) == {"active"}


def test_report_has_bars_settings_and_both_precisions(builtin_suite, committed_embedder, embedded) -> None:
    kind = LifecycleKind(_only(builtin_suite, "lessons-on-call"), committed_embedder, verbose=True)
    _, report = run_kind(kind, embedded)
    assert report.stem == "lifecycle-embedded"
    cells = [cell for row in report.scorecard.rows for cell in row]
    assert any(re.fullmatch(r"[█░]{10} \d\.\d\d", cell) for cell in cells)
    metrics = {row[1] for row in report.scorecard.rows}
    assert {
        "P@5 graded (hits / min(5, returned); / 5 under fixed-cutoff rules)",
        "P@5 (trec_eval: hits / 5)",
        "noise suppression",
    } <= metrics
    for name, value, _ in LifecycleSettings().describe():
        assert f"| {md(name)} | {md(value)} |" in report.markdown  # a table cell escapes Markdown's punctuation
        assert f"setting {name} = {value}" in report.scorecard.caption
    assert any("cycle 5" in line for line in report.scorecard.caption)
    assert set(report.scores) == {"bm25", "vector", "hybrid"}
    assert report.scores["bm25"].cases["lessons-on-call"].score is not None
    assert report.data["setting_docs"][0] == {
        "name": "cycles",
        "value": 5,
        "doc": LifecycleSettings.__dataclass_fields__["cycles"].metadata["doc"],
    }


def test_a_failing_grade_fails_the_run_only_under_a_gate(embedded) -> None:
    """Nothing in the scenario answers its query: precision and MRR are 0, the grade FAIL. The
    grade is reported either way; it fails the run only when the user asked for a gate it falls
    under, and the gate's line names the gate."""
    scenario = Scenario.model_validate(
        {
            "name": "unanswerable",
            "memories": [
                {"id": "s1", "label": "signal", "summary": "tomato staking in june", "salience": 0.8},
                {"id": "s2", "label": "signal", "summary": "vault token rotation", "salience": 0.8},
                {"id": "n1", "label": "noise", "summary": "office plant watering", "salience": 0.3},
            ],
            "queries": [{"query": "tomato staking", "expected_ids": ["s2"]}],
        }
    )
    suite = LifecycleSuite("t", (scenario,))
    results, report = run_kind(LifecycleKind(suite, WordHashEmbedder()), embedded, [Mode.BM25])
    assert results[0].grade == "FAIL"
    assert report.gates == []
    assert report.scores["bm25"].cases["unanswerable"].passed is False
    for gate in (Grade.FAIL, Grade.WARN):
        _, gated = run_kind(LifecycleKind(suite, WordHashEmbedder(), gate=gate), embedded, [Mode.BM25])
        assert gated.gates == [f"lifecycle bm25: overall grade FAIL (precision, mrr) under --fail-on-grade {gate}"]
