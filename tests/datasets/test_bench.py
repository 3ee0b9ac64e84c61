"""The dataset benchmark and the synthetic LongMemEval-S-sized file."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from harness.backends.embedded import EmbeddedBackend
from harness.benchmarks.datasets import BenchTarget, bench_datasets, build_synthetic_longmemeval, run_bench
from harness.embeddings import Embedder
from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode
from harness.suites.longmemeval import LongMemEvalFile

from .builders import BagOfWordsEncoder, shared_file


def test_the_synthetic_file_repeats_haystacks_under_new_ids(tmp_path: Path, longmemeval_file: Path) -> None:
    path = build_synthetic_longmemeval(longmemeval_file, tmp_path / "synthetic.json", haystacks=7)
    haystacks = list(LongMemEvalFile(path).read())

    assert [h.id for h in haystacks] == [
        "syn0_q1",
        "syn1_q2_abs",
        "syn2_q3",
        "syn3_q1",
        "syn4_q2_abs",
        "syn5_q3",
        "syn6_q1",
    ]
    assert haystacks[3].questions[0].gold_sessions == {"syn3_answer_1"}
    assert haystacks[3].documents[0].text == haystacks[0].documents[0].text
    assert haystacks[1].questions[0].abstention


def test_bench_rows_cover_each_mode_and_level(tmp_path: Path, longmemeval_file: Path, locomo_file: Path) -> None:
    targets = [
        BenchTarget("small lme", "longmemeval-s", longmemeval_file),
        BenchTarget("small locomo", "locomo", locomo_file),
    ]
    embedder = functools.partial(
        Embedder, "bag-of-words", cache_dir=tmp_path, loader=lambda _n, _d: BagOfWordsEncoder()
    )
    rows = run_bench(
        targets, {"embedded": EmbeddedBackend}, [Mode.BM25, Mode.HYBRID], [Granularity.TURN], embedder, isolate=False
    )

    assert [(r.label, r.mode, r.level) for r in rows] == [
        (label, mode, level)
        for label in ("small lme", "small locomo")
        for mode in ("bm25", "hybrid")
        for level in ("turn", "session")
    ]
    first = rows[0]
    assert first.questions == 2
    assert first.haystacks == 2
    assert first.turns == 8
    assert first.peak_rss_mb > 0
    assert first.p95_ms >= first.p50_ms > 0
    assert set(first.metrics) >= {"recall_any@1", "recall_all@10", "ndcg@10", "mrr"}


def test_bench_command_runs_cells_in_fresh_processes_and_writes_reports(tmp_path: Path, longmemeval_file: Path) -> None:
    embedder = functools.partial(Embedder, cache_dir=tmp_path / "never-used")
    rows, paths = bench_datasets(
        backend_factories={"embedded": EmbeddedBackend},
        modes=["bm25"],
        granularities=["session"],
        targets=[BenchTarget("small", "longmemeval-s", longmemeval_file)],
        out_dir=tmp_path / "reports",
        embedder_factory=embedder,
    )
    report = json.loads((tmp_path / "reports" / "bench-datasets-latest.json").read_text())

    assert [r.questions for r in rows] == [2]
    assert {p.suffix for p in paths} == {".json", ".md"}
    (row,) = report["rows"]
    assert (row["label"], row["mode"], row["questions"]) == ("small", "bm25", 2)
    assert report["machine"]["cpus"]
    assert (
        "| small | embedded | bm25 | session | session | 2 |"
        in (tmp_path / "reports" / "bench-datasets-latest.md").read_text()
    )


def test_the_synthetic_file_from_the_shared_sample(tmp_path: Path) -> None:
    path = build_synthetic_longmemeval(shared_file("longmemeval_s.sample5.json"), tmp_path / "s.json", haystacks=12)
    refs = LongMemEvalFile(path).scan()
    assert len(refs) == 12
    assert refs[11].id == "syn11_118b2229"
