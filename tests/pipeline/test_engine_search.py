"""The reference pipeline's engine search, as an adapter wraps it: the user's live memories (no
supersession, no resolution) in every scope and type, by cosine, BM25 or their fusion, with none
of the pipeline's tiering (no phrase gate, no pinned or question exclusion)."""

from __future__ import annotations

import pytest

from harness.backends.embedded import EmbeddedBackend
from harness.pipeline import Mode, PipelineSettings
from harness.pipeline.context_rules import live
from harness.pipeline.engine_search import EngineSearch
from tests.pipeline.context_rules_fixture import SEED, USER
from tests.pipeline.test_invariants import HashingEmbedder

LIVE = {
    "raised-beds",  # pinned
    "no-peat",
    "cast-iron",  # the kitchen: no scope filter
    "which-tomato",  # an open question
    "frost-date",
    "compost-bin",
    "rain-barrel",
    "sourdough",
    "bin-feeds-barrel",
    "barrel-mixed",
    "beds-use-bin",
    "frost-matters",
}
"""Ana's memories but old-hoe and wheelbarrow (superseded), which-hose (resolved); bea-shed is Bea's."""


@pytest.fixture
def engine() -> EngineSearch:
    search = EngineSearch.open(EmbeddedBackend(), "engine", PipelineSettings(), HashingEmbedder(), False, live)
    search.load(SEED)
    return search


@pytest.mark.parametrize("mode", list(Mode))
def test_every_live_memory_of_the_user_is_a_candidate(engine: EngineSearch, mode: Mode) -> None:
    query = "raised beds" if mode is Mode.BM25 else "anything in the garden"
    hits = engine.search(query, USER, 100, mode)
    assert len(hits) == len({h.id for h in hits})
    assert {h.id for h in hits} <= LIVE
    if mode is not Mode.BM25:
        assert {h.id for h in hits} == LIVE


def test_bm25_is_the_engine_hits_ungated(engine: EngineSearch) -> None:
    """`beds-use-bin` shares only "beds" with the query: the pipeline's phrase gate drops it, the
    engine returns it; `raised-beds` is pinned and returned all the same."""
    assert {h.id for h in engine.search("raised beds", USER, 100, Mode.BM25)} == {"raised-beds", "beds-use-bin"}


def test_vector_is_the_cosine_top_limit(engine: EngineSearch) -> None:
    hits = engine.search("compost", USER, 3, Mode.VECTOR)
    assert len(hits) == 3
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_a_put_memory_replaces_its_copy(engine: EngineSearch) -> None:
    retired = next(m for m in SEED if m.id == "compost-bin").model_copy(update={"superseded_by": "rain-barrel"})
    engine.put(retired)
    assert {h.id for h in engine.search("anything", USER, 100, Mode.VECTOR)} == LIVE - {"compost-bin"}
