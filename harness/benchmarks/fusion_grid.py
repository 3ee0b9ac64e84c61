"""Choosing hybrid's fusion on LoCoMo and the LongMemEval oracle (never on LongMemEval-S).

`python -m harness.benchmarks.fusion_grid [--encoder NAME ...]` asks every scored question of both
sets, in session and turn runs, on the embedded backend, keeps the bm25 and vector rankings hybrid
fuses, and scores hybrid from those same rankings by each method of `METHODS` (convex combination,
weighted RRF with k=60) at each share of `SHARES` (share 0 is bm25, share 1 is vector). A fusion's
margin in one cell (set, run granularity, measure) is hybrid minus the better of bm25 and vector
there; per encoder the chosen (method, share) has the largest worst margin, then the largest mean
margin, then the smallest share, then convex before rrf. It prints the grid and the choice beside
`HYBRID_FUSION`. Vectors come from the embedding cache (embedded once where missing: minutes per
encoder on two cores).
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from harness.backends.base import Backend, Hit
from harness.backends.registry import connect
from harness.embeddings.embedder import Embedder
from harness.embeddings.registry import names
from harness.evaluation.kinds.haystack.runner import skip_reason
from harness.metrics.dataset_measures import score
from harness.models.haystack import Granularity
from harness.pipeline.haystack import (
    HYBRID_FUSION,
    Fusion,
    FusionMethod,
    HaystackIndex,
    embedding_texts,
    hybrid,
    query_terms,
)
from harness.pipeline.settings import Mode
from harness.suites.datasets import open_selection

SETS = ("locomo", "longmemeval-oracle")
LEVELS = (Granularity.SESSION, Granularity.TURN)
MEASURES = ("recall_any@1", "recall_any@5", "mrr")
SHARES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8, 1.0)
"""The shares tried: 0 is bm25 alone, 1 is vector alone."""
METHODS: tuple[FusionMethod, ...] = ("convex", "rrf")
"""In order of preference on an exact tie: convex first, the setting the grid began with."""
FUSIONS = tuple(Fusion(method, share) for method in METHODS for share in SHARES)
BM25, VECTOR = Fusion("convex", 0.0), Fusion("convex", 1.0)
"""The fusions that rank exactly as bm25 and as vector alone."""


@dataclass(frozen=True, slots=True)
class Asked:
    """One scored question: its gold at the run's granularity and the two rankings hybrid fuses."""

    gold: frozenset[str]
    bm25: list[Hit]
    cosine: list[Hit]


Cell = tuple[str, Granularity]
"""A set and a run granularity."""


def asked(dataset: str, granularity: Granularity, embedder: Embedder, backend: Backend) -> Iterator[Asked]:
    """Every scored question of `dataset` in a `granularity` run (abstention and gold-less ones left out)."""
    selection = open_selection(dataset, None)
    for haystack in selection.reader.read(selection.selected):
        questions = [q for q in haystack.questions if skip_reason(q, granularity) is None]
        if not questions:
            continue
        vectors = embedder.embed(embedding_texts(haystack))
        query_vectors = embedder.embed([q.text for q in questions])
        namespace = f"grid{uuid.uuid4().hex[:12]}"
        index = HaystackIndex(backend, namespace, haystack, granularity, [Mode.HYBRID], vectors)
        try:
            for question, vector in zip(questions, query_vectors, strict=True):
                yield Asked(question.gold(granularity), index.bm25(query_terms(question.text)), index.cosine(vector))
        finally:
            index.drop()


Grid = dict[Cell, dict[Fusion, tuple[float, ...]]]
"""Hybrid's mean of each of `MEASURES`, per cell and fusion."""


def means(questions: Sequence[Asked], fusion: Fusion) -> tuple[float, ...]:
    """Hybrid's mean of each of `MEASURES` by `fusion`."""
    totals = [0.0] * len(MEASURES)
    for q in questions:
        scores = score([h.id for h in hybrid(q.bm25, q.cosine, fusion)], q.gold)
        totals = [t + scores[m] for t, m in zip(totals, MEASURES, strict=True)]
    return tuple(t / len(questions) for t in totals)


def margins(grid: Grid, fusion: Fusion) -> list[float]:
    """Per cell and measure: hybrid by `fusion` minus the better of bm25 and vector alone."""
    return [row[fusion][i] - max(row[BM25][i], row[VECTOR][i]) for row in grid.values() for i in range(len(MEASURES))]


def choose(grid: Grid) -> Fusion:
    """The fusion with the largest worst margin, then the largest mean margin, then the smallest
    share, then the earlier method of `METHODS`."""

    def key(fusion: Fusion) -> tuple[float, float, float, int]:
        m = margins(grid, fusion)
        return (round(min(m), 9), round(sum(m) / len(m), 9), -fusion.share, -METHODS.index(fusion.method))

    return max(FUSIONS, key=key)


def encoder_grid(model: str, backend: Backend, sets: Sequence[str] = SETS) -> Grid:
    embedder = Embedder(model)
    grid: Grid = {}
    for dataset in sets:
        for level in LEVELS:
            questions = list(asked(dataset, level, embedder, backend))
            grid[dataset, level] = {fusion: means(questions, fusion) for fusion in FUSIONS}
    return grid


def render(model: str, grid: Grid, chosen: Fusion) -> str:
    cells = list(grid)
    head = " | ".join(f"{d} {lv} R@1/R@5/MRR" for d, lv in cells)
    lines = [
        f"## {model}",
        "",
        f"| method | share | {head} | worst margin | mean margin |",
        "|" + "---|" * (len(cells) + 4),
    ]
    for fusion in FUSIONS:
        m = margins(grid, fusion)
        name = {0.0: "0 (bm25)", 1.0: "1 (vector)"}.get(fusion.share, f"{fusion.share:g}")
        row = " | ".join(" / ".join(f"{v:.3f}" for v in grid[c][fusion]) for c in cells)
        mark = " <- chosen" if fusion == chosen else ""
        lines.append(f"| {fusion.method} | {name} | {row} | {min(m):+.3f} | {sum(m) / len(m):+.4f}{mark} |")
    lines.append("")
    lines.append(f"chosen fusion for {model}: {chosen} (HYBRID_FUSION: {HYBRID_FUSION.get(model)})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.benchmarks.fusion_grid", description=__doc__)
    parser.add_argument("--encoder", action="append", choices=names(), help="repeatable (default: all)")
    parser.add_argument("--dataset", action="append", choices=SETS, help="repeatable (default: both)")
    args = parser.parse_args(argv)
    backend = connect("embedded")
    for model in args.encoder or names():
        grid = encoder_grid(model, backend, args.dataset or SETS)
        print(render(model, grid, choose(grid)), flush=True)
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
