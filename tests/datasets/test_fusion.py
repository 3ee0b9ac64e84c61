"""Hybrid's fusion: the convex combination of min-max normalised scores and weighted RRF, their
properties, the grid's choice rule, and that the documented fusion (docs/datasets.md, `HYBRID_FUSION`) is what
a dataset run uses."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.backends.base import Hit
from harness.benchmarks.fusion_grid import FUSIONS, Grid, choose, margins
from harness.embeddings import Embedder
from harness.embeddings.registry import names
from harness.metrics.evaluate import rank_key
from harness.models.haystack import Granularity
from harness.pipeline import haystack
from harness.pipeline.fusion import convex, min_max
from harness.pipeline.haystack import DEPTH, HYBRID_FUSION, Fusion, FusionMethod, fusion_for, hybrid

from .builders import run_dataset

DATASETS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "datasets.md"

# Scores on a 1/8 grid, as BM25 and cosine scores are far apart compared with the 9-decimal tie-break.
_scores = st.integers(min_value=-80, max_value=800).map(lambda n: n / 8)
_ids = st.sampled_from([f"d{i}" for i in range(12)])


def _ranking(scores: dict[str, float]) -> list[Hit]:
    """A backend's ranking: best first by the one tie-break."""
    return sorted((Hit(doc, s) for doc, s in scores.items()), key=lambda h: rank_key(h.score, h.id))


_lists = st.dictionaries(_ids, _scores, max_size=10).map(_ranking)
_weights = st.integers(min_value=1, max_value=99).map(lambda n: n / 100)


def _ids_of(hits: list[Hit]) -> list[str]:
    return [h.id for h in hits]


@settings(deadline=None)  # timing is not the property; a loaded machine must not fail it
@given(_lists, _lists, _weights)
def test_a_list_weighted_zero_leaves_the_other_lists_ranking(a: list[Hit], b: list[Hit], weight: float) -> None:
    assert _ids_of(convex({"a": a, "b": b}, {"a": weight, "b": 0.0}, DEPTH)) == _ids_of(a)
    assert _ids_of(convex({"a": a, "b": b}, {"a": 0.0, "b": weight}, DEPTH)) == _ids_of(b)


@settings(deadline=None)  # timing is not the property; a loaded machine must not fail it
@given(_lists, _lists, _weights, st.data())
def test_raising_a_documents_score_never_lowers_it(
    a: list[Hit], b: list[Hit], weight: float, data: st.DataObject
) -> None:
    """Monotone: a higher score in one list never moves a document down the fused ranking."""
    if not a:
        return
    doc = data.draw(st.sampled_from(_ids_of(a)))
    raised = _ranking({h.id: h.score + (1.0 if h.id == doc else 0.0) for h in a})
    weights = {"a": weight, "b": 1.0 - weight}
    before = _ids_of(convex({"a": a, "b": b}, weights, DEPTH)).index(doc)
    after = _ids_of(convex({"a": raised, "b": b}, weights, DEPTH)).index(doc)
    assert after <= before


@settings(deadline=None)  # timing is not the property; a loaded machine must not fail it
@given(_lists, _lists, _weights)
def test_convex_shares_lie_in_0_1_and_name_their_list_and_rank(a: list[Hit], b: list[Hit], weight: float) -> None:
    fused = convex({"a": a, "b": b}, {"a": weight, "b": 1.0 - weight}, DEPTH)
    assert {h.id for h in fused} == {h.id for h in a} | {h.id for h in b}
    for hit in fused:
        assert -1e-12 <= hit.score <= 1.0 + 1e-12
        assert hit.score == pytest.approx(sum(c.score for c in hit.clauses))
        assert all(re.fullmatch(r"[ab]#\d+", c.term) for c in hit.clauses)


def test_min_max_scales_a_list_to_0_1_and_an_even_list_to_1() -> None:
    assert min_max([Hit("x", 4.0), Hit("y", 3.0), Hit("z", 2.0)]) == {"x": 1.0, "y": 0.5, "z": 0.0}
    assert min_max([Hit("x", 0.7), Hit("y", 0.7)]) == {"x": 1.0, "y": 1.0}
    assert min_max([]) == {}


def test_convex_keeps_how_far_apart_scores_are_where_rrf_keeps_only_order() -> None:
    """bm25 is sure of `a` (10 against 1), cosine barely prefers `b` (0.51 against 0.50): at equal
    weights `a` wins; rank fusion would have tied them."""
    bm25 = [Hit("a", 10.0), Hit("b", 1.0), Hit("c", 0.5)]
    cosine = [Hit("b", 0.51), Hit("a", 0.50), Hit("c", 0.1)]
    fused = convex({"bm25": bm25, "vector": cosine}, {"bm25": 0.5, "vector": 0.5}, DEPTH)
    assert _ids_of(fused) == ["a", "b", "c"]
    assert fused[0].score == pytest.approx(0.5 * 1.0 + 0.5 * (0.40 / 0.41))


@pytest.mark.parametrize("method", ["convex", "rrf"])
def test_hybrid_at_share_0_is_bm25_and_at_share_1_is_vector(method: FusionMethod) -> None:
    bm25 = [Hit("a", 3.0), Hit("b", 2.0)]
    cosine = [Hit("c", 0.9), Hit("b", 0.8)]
    assert _ids_of(hybrid(bm25, cosine, Fusion(method, 0.0))) == ["a", "b"]
    assert _ids_of(hybrid(bm25, cosine, Fusion(method, 1.0))) == ["c", "b"]


@settings(deadline=None)  # timing is not the property; a loaded machine must not fail it
@given(_lists, _lists)
def test_rrf_hybrid_weighted_0_or_1_ranks_as_bm25_or_vector_alone(bm25: list[Hit], cosine: list[Hit]) -> None:
    assert _ids_of(hybrid(bm25, cosine, Fusion("rrf", 0.0))) == _ids_of(bm25)
    assert _ids_of(hybrid(bm25, cosine, Fusion("rrf", 1.0))) == _ids_of(cosine)


def test_rrf_hybrid_scores_by_rank_alone_as_the_formula_says() -> None:
    """Share 0.6, k = 60: each document scores 0.4 / (60 + bm25 rank) + 0.6 / (60 + vector rank),
    0 from a list it is absent from; the scores themselves (bm25 sure of `a`) do not count."""
    bm25 = [Hit("a", 10.0), Hit("b", 1.0), Hit("c", 0.9)]
    cosine = [Hit("c", 0.51), Hit("d", 0.50), Hit("a", 0.49)]
    fused = hybrid(bm25, cosine, Fusion("rrf", 0.6))
    expected = {
        "a": 0.4 / 61 + 0.6 / 63,  # 0.016081
        "b": 0.4 / 62,  # 0.006452
        "c": 0.4 / 63 + 0.6 / 61,  # 0.016185
        "d": 0.6 / 62,  # 0.009677
    }
    assert _ids_of(fused) == ["c", "a", "d", "b"]
    assert {h.id: h.score for h in fused} == pytest.approx(expected)


def test_every_encoder_has_a_fusion_and_a_model_path_gets_the_float_ones() -> None:
    assert set(HYBRID_FUSION) == set(names())
    assert all(f.method in ("convex", "rrf") and 0 <= f.share < 1 for f in HYBRID_FUSION.values())
    assert fusion_for("/models/my-sentence-model") == HYBRID_FUSION["all-MiniLM-L6-v2"]


def test_the_manual_states_the_fusions_the_pipeline_uses() -> None:
    section = DATASETS_PAGE.read_text(encoding="utf-8").split("## Hybrid weights", 1)[1].split("\n## ", 1)[0]
    rows = re.finditer(r"^\| `([\w.-]+)` \| (convex|rrf) \| ([0-9.]+) \|", section, re.M)
    stated = {m[1]: Fusion(m[2], float(m[3])) for m in rows}  # type: ignore[arg-type]  # the regex admits only methods
    assert stated == dict(HYBRID_FUSION)


@pytest.mark.parametrize(
    ("method", "share", "same_as"), [("convex", 0.0, "bm25"), ("convex", 1.0, "vector"), ("rrf", 1.0, "vector")]
)
def test_a_dataset_run_fuses_with_its_encoders_fusion(
    tmp_path: Path,
    longmemeval_file: Path,
    embedder_factory: Callable[[], Embedder],
    monkeypatch: pytest.MonkeyPatch,
    method: FusionMethod,
    share: float,
    same_as: str,
) -> None:
    """The run reads `HYBRID_FUSION` for its encoder: at share 0 hybrid ranks as bm25, at 1 as vector."""
    monkeypatch.setattr(haystack, "HYBRID_FUSION", MappingProxyType({"bag-of-words": Fusion(method, share)}))
    _, finished = run_dataset(
        out_dir=tmp_path, embedder_factory=embedder_factory, file=longmemeval_file, modes=["bm25", "vector", "hybrid"]
    )
    report = json.loads(finished.paths[0].read_text())
    retrieved = {
        (q["id"], q["mode"]): [doc for doc, _ in q["levels"]["session"]["retrieved"]]
        for q in report["questions"]
        if q["status"] == "ok"
    }
    asked = {qid for qid, _ in retrieved}
    assert asked
    assert all(retrieved[qid, "hybrid"] == retrieved[qid, same_as] for qid in asked)
    assert f"vector share {share} for bag-of-words" in report["method"]
    assert ("reciprocal rank fusion" in report["method"]) == (method == "rrf")


def _flat_grid() -> Grid:
    """Every fusion at 0.5 on every measure in two cells: every margin 0."""
    return {
        cell: dict.fromkeys(FUSIONS, (0.5, 0.5, 0.5)) for cell in [("x", Granularity.SESSION), ("y", Granularity.TURN)]
    }


def test_the_grid_chooses_the_fusion_with_the_best_worst_margin_then_the_best_mean() -> None:
    """Margins are against the better of bm25 (share 0) and vector (share 1) in each cell."""
    grid = _flat_grid()
    grid["x", Granularity.SESSION][Fusion("convex", 0.3)] = (0.9, 0.9, 0.9)  # the best mean...
    grid["y", Granularity.TURN][Fusion("convex", 0.3)] = (0.4, 0.5, 0.5)  # ...but it loses a cell
    grid["x", Granularity.SESSION][Fusion("convex", 0.2)] = (0.6, 0.5, 0.5)
    grid["x", Granularity.SESSION][Fusion("rrf", 0.4)] = (0.5, 0.6, 0.55)  # mean margin 0.15 / 6, above 0.1 / 6
    grid["x", Granularity.SESSION][Fusion("convex", 0.1)] = (0.55, 0.5, 0.5)
    assert margins(grid, Fusion("convex", 0.3))[3] == pytest.approx(-0.1)
    assert choose(grid) == Fusion("rrf", 0.4)


def test_the_grid_breaks_exact_ties_by_the_smaller_share_then_convex() -> None:
    grid = _flat_grid()
    for fusion in (Fusion("rrf", 0.2), Fusion("convex", 0.2), Fusion("rrf", 0.1)):
        grid["y", Granularity.TURN][fusion] = (0.5, 0.7, 0.5)
    assert choose(grid) == Fusion("rrf", 0.1)
    grid["y", Granularity.TURN][Fusion("convex", 0.1)] = (0.5, 0.7, 0.5)
    assert choose(grid) == Fusion("convex", 0.1)
    assert choose(_flat_grid()) == Fusion("convex", 0.0)  # every margin 0: bm25, as convex at share 0
