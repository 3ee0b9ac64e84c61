"""Mnemonic's retrieval rules (`mnemonic-8ecf3ab`, harness/pipeline/lifecycle/rules.py) on our own
Mnemonic-format scenarios in cases/mnemonic-format/rules.json, one scenario per rule: every query
comes out as its `expected_ids` say under the ruleset, and flipping one rule to the harness's
reading turns exactly the queries written for it.

The orders are derived by hand from the rules (no consolidation runs: each query is retrieved at
the scenario's start). Every text gets its own embedding axis, so each vector hit has cosine 0:
in hybrid every memory is a vector entry of score 0, a lexical hit also a dual hit
(0.4 x (0.7 / rank + 0.3 x salience) + 0.15), and a memory nothing else reaches ranks last, ties by id.

- concept-tags: only the concept tag holds "reconciliation"; unsearched, nothing matches and the
  zero ties put ct-n1 first.
- prefix-words: "deploy*" matches "deployment"; as a whole word nothing matches.
- row-length: as FTS5 rows (a: 21 tokens, b: 13, avg 8.6) b scores 2.2/2.66 against a's 2.2/3.50;
  per field a's one-word summary (idf ln 4, norm 0.525) beats b's content (idf ln 2): [rl-a, rl-b].
- salience-in-entry: ranks 1-3 by tf 3/2/1 at equal length; entries 0.49, 0.302 (salience 0.1),
  0.351 (0.9): [se-1, se-3, se-2]; the harness's fusion keeps BM25's order (0.5, 0.44, 0.32).
- spread-weights: 0.49 x 0.5 x 0.7 x 1.2 = 0.206 > 0.1 reaches sw-target; the harness passes
  0.49 x 0.5 x 0.7 = 0.17 < 0.3, and sw-n1 leads the zero ties.
- activation-over-salience: entries 0.442 (as-a, rank 1, salience 0.1) and 0.410 (as-b, rank 2,
  salience 1.0); x 1.2 both: as-a first; the harness's salience term makes it 0.243 against 0.410.
- hebbian-counts: entry 0.55; both neighbours get 0.55 x 0.85 x 0.7 x 0.8 = 0.262 (hop 2 would
  pass 0.087, under 0.1); the first query spreads along hb-entry -> hb-tb (source to target) and
  not hb-ta -> hb-entry, so the second ranks hb-tb (count 2: +0.02 ln 3) over hb-ta (+0.02 ln 2).
  Without counting both tie and hb-ta leads by id. Under the harness's spread (0.55 x 0.85 x 0.7 =
  0.327 >= 0.3) and ranking the counts still decide.
- baseline-bm25: bm25 mode is the plain lexical order [bb-a, bb-b, bb-c]; as a pipeline bb-a
  (0.85) spreads 0.85 x 1.0 x 0.7 x 1.2 = 0.714 to bb-c (entry 0.383): [bb-a, bb-c, bb-b].
- precision-over-five: one hit returned alone: P@5 = 1/5 (the other reading: 1/1).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from harness.backends.embedded import EmbeddedBackend
from harness.evaluation.kinds.lifecycle import runner
from harness.evaluation.kinds.lifecycle.reference import ReferenceAdapter
from harness.metrics.lifecycle_ranking import id_hits, ranking_scores
from harness.models.scenario import LifecycleSuite, Scenario
from harness.pipeline.lifecycle.memory import ScenarioMemory, seed
from harness.pipeline.lifecycle.rules import HARNESS_RULES, MNEMONIC_RULES, Fusion, LifecycleRules, Ranking, Spread
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.settings import Mode
from harness.suites.mnemonic import load_mnemonic
from harness.suites.resolve import cases_dir

FIXTURE = cases_dir() / "mnemonic-format" / "rules.json"
SETTINGS = LifecycleSettings()
BM25_SCENARIOS = {"baseline-bm25", "precision-over-five"}
"""Scenarios written for bm25 mode; the others run in hybrid."""


class AxisEmbedder:
    """Each distinct text its own unit axis: every cosine between two different texts is 0."""

    dimensions = 64

    def __init__(self) -> None:
        self._axes: dict[str, int] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            rows[row, self._axes.setdefault(text, len(self._axes))] = 1.0
        return rows


@pytest.fixture(scope="module")
def suite() -> LifecycleSuite:
    return load_mnemonic(FIXTURE)


def rankings(scenario: Scenario, rules: LifecycleRules) -> list[list[str]]:
    """Each query's returned ids, asked in order at the scenario's start."""
    embedder = AxisEmbedder()
    backend = EmbeddedBackend()
    queries = [q.query for q in scenario.queries]
    mode = Mode.BM25 if scenario.name in BM25_SCENARIOS else Mode.HYBRID
    memory = ScenarioMemory.open(
        backend, f"r{uuid.uuid4().hex[:8]}", seed(scenario, SETTINGS), embedder, mode, SETTINGS, rules
    )
    try:
        vectors = list(embedder.embed(queries))
        runs = [memory.search(query, vector, 0.0, 5) for query, vector in zip(queries, vectors, strict=True)]
    finally:
        memory.drop()
        backend.close()
    return [[r.id for r in run] for run in runs]


def verdicts(suite: LifecycleSuite, rules: LifecycleRules) -> dict[str, bool]:
    """Per query (`scenario#n`): its ranking starts with its expected ids in order; for
    precision-over-five, its graded P@5 is the hand-derived 1/5."""
    out = {}
    for scenario in suite.scenarios:
        for number, (query, returned) in enumerate(zip(scenario.queries, rankings(scenario, rules), strict=True), 1):
            expected = list(query.expected_ids)
            if scenario.name == "precision-over-five":
                scores = ranking_scores(id_hits(returned, expected), len(expected), 5, rules.fixed_cutoff)
                out[f"{scenario.name}#{number}"] = returned == expected and scores.precision == pytest.approx(0.2)
            else:
                out[f"{scenario.name}#{number}"] = returned[: len(expected)] == expected
    return out


def test_every_query_comes_out_as_written_under_mnemonic_rules(suite) -> None:
    failing = [case for case, ok in verdicts(suite, MNEMONIC_RULES).items() if not ok]
    assert failing == []


FLIPS: list[tuple[str, Any, set[str]]] = [
    ("concepts_searched", False, {"concept-tags#1"}),
    ("prefix_terms", False, {"prefix-words#1"}),
    ("row_bm25", False, {"row-length#1"}),
    ("fusion", Fusion.WEIGHTED, {"salience-in-entry#1"}),
    ("spread", Spread.HARNESS, {"spread-weights#1"}),
    ("ranking", Ranking.HARNESS, {"activation-over-salience#1"}),
    ("hebbian", False, {"hebbian-counts#2"}),
    ("baseline_modes", False, {"baseline-bm25#1"}),
    ("fixed_cutoff", False, {"precision-over-five#1"}),
]


def test_every_rule_that_differs_is_flipped_here() -> None:
    differing = {
        name
        for name, value in HARNESS_RULES.__dict__.items()
        if name not in ("name", "constants") and value != getattr(MNEMONIC_RULES, name)
    }
    assert differing == {rule for rule, *_ in FLIPS}
    assert all(getattr(HARNESS_RULES, rule) == value for rule, value, _ in FLIPS)


@pytest.mark.parametrize(("rule", "value", "cases"), FLIPS, ids=[rule for rule, *_ in FLIPS])
def test_flipping_one_rule_turns_exactly_its_cases(suite, rule, value, cases) -> None:
    flipped = replace(MNEMONIC_RULES, **{rule: value})
    failing = {case for case, ok in verdicts(suite, flipped).items() if not ok}
    assert failing == cases


def test_a_scenario_run_keeps_the_counts_spreading_added() -> None:
    """Through the phases (baseline, access, cycles, post) the Hebbian counts reach the final graph:
    every query of hebbian-counts spreads hb-entry -> hb-tb, never hb-ta -> hb-entry."""
    (scenario,) = (s for s in load_mnemonic(FIXTURE).scenarios if s.name == "hebbian-counts")
    counts: dict[str, dict[tuple[str, str], int]] = {}
    for rules in (MNEMONIC_RULES, HARNESS_RULES):
        backend = EmbeddedBackend()
        try:
            adapter = ReferenceAdapter(backend, AxisEmbedder(), SETTINGS, rules)
            run = runner.run(scenario, adapter.open(scenario, Mode.HYBRID), 5, SETTINGS)
        finally:
            backend.close()
        assert run.observed is not None
        counts[rules.name] = {(e.source, e.target): e.activation_count for e in run.observed.associations}
    assert counts["harness"] == {("hb-ta", "hb-entry"): 1, ("hb-entry", "hb-tb"): 1}
    mnemonic = counts[MNEMONIC_RULES.name]
    assert mnemonic[("hb-ta", "hb-entry")] == 1
    assert mnemonic[("hb-entry", "hb-tb")] > 1
