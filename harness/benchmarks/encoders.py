"""`harness bench --embeddings`: each encoder's speed on dataset turns and the retrieval it gives.

Speed: the first `texts` distinct turns of the LongMemEval-S sample (`speaker: text`, about 1,000
characters each), embedded through the harness's own path (longest first, shards of 512) into a
scratch cache, after the encoder is loaded and warmed on a few texts; encoders run back to back
in one process, float first, so they share the machine's load as nearly as possible. Agreement:
each encoder's vectors against the float model's on the same texts (cosine).
Quality: vector and hybrid runs of LoCoMo (turn granularity, also scored per session) and of the
LongMemEval-S sample (session granularity), through the ordinary dataset benchmark cells and the
user's embedding cache, beside bm25 and the float model.
"""

from __future__ import annotations

import functools
import json
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from harness.backends.base import Backend
from harness.benchmarks.datasets import SAMPLE_FILE, BenchRow, BenchTarget, run_bench
from harness.embeddings import DEFAULT_MODEL, Embedder, machine_threads
from harness.errors import HarnessError
from harness.evaluation.kinds.haystack.report import machine
from harness.models.haystack import Granularity
from harness.pipeline.haystack import embedding_texts
from harness.pipeline.settings import Mode
from harness.reports.writer import write_run_files
from harness.suites.datasets import SPECS, find_file
from harness.suites.longmemeval import LongMemEvalFile

QUALITY = ("recall_any@5", "recall_any@10", "mrr")
WARM_UP = 16


@dataclass(frozen=True, slots=True)
class Speed:
    """One encoder's throughput on the fixed sample, and how close its vectors are to the float model's."""

    model: str
    device: str
    threads: int
    load_s: float
    texts: int
    seconds: float
    texts_per_s: float
    cosine_mean: float | None
    cosine_min: float | None
    """None when the encoder's vectors have another size than the float model's (the static one)."""


def sample_turns(path: Path, count: int) -> list[str]:
    """The first `count` distinct turn texts of a LongMemEval file, as a run embeds them."""
    texts: dict[str, None] = {}
    for haystack in LongMemEvalFile(path).read():
        for text in embedding_texts(haystack):
            texts[text] = None
            if len(texts) == count:
                return list(texts)
    return list(texts)


def measure_speed(
    models: Sequence[str], texts: Sequence[str], embedder_factory: Callable[..., Embedder]
) -> list[Speed]:
    """Each model in turn: load and warm up (timed apart), then embed `texts` into a scratch cache."""
    speeds: list[Speed] = []
    reference: np.ndarray | None = None
    for model in models:
        with tempfile.TemporaryDirectory(prefix="harness-encoder-bench-") as scratch:
            embedder = embedder_factory(model, cache_dir=Path(scratch))
            started = time.perf_counter()
            embedder.embed([f"warm up {i}" for i in range(WARM_UP)])
            load_s = time.perf_counter() - started
            started = time.perf_counter()
            vectors = embedder.embed(list(texts))
            seconds = time.perf_counter() - started
        if reference is None:
            reference = vectors
        cosines = (reference * vectors).sum(axis=1) if vectors.shape == reference.shape else None
        speeds.append(
            Speed(
                model=model,
                device=str(embedder.device),
                threads=machine_threads(),
                load_s=load_s,
                texts=len(texts),
                seconds=seconds,
                texts_per_s=len(texts) / seconds,
                cosine_mean=None if cosines is None else float(np.mean(cosines)),
                cosine_min=None if cosines is None else float(np.min(cosines)),
            )
        )
    return speeds


def quality_targets() -> list[tuple[BenchTarget, Granularity]]:
    wanted = [
        (BenchTarget("locomo", "locomo", path), Granularity.TURN) for path in [find_file(SPECS["locomo"].files)] if path
    ]
    wanted += [
        (BenchTarget("longmemeval-s sample5", "longmemeval-s", path), Granularity.SESSION)
        for path in [find_file((SAMPLE_FILE,))]
        if path
    ]
    return wanted


def measure_quality(
    models: Sequence[str],
    backend_factory: Callable[[], Backend],
    embedder_factory: Callable[..., Embedder],
    targets: Sequence[tuple[BenchTarget, Granularity]],
) -> dict[str, list[BenchRow]]:
    """bm25 once, then vector and hybrid per model, each cell in its own process."""
    rows: dict[str, list[BenchRow]] = {"bm25": []}
    backends = {"embedded": backend_factory}
    for target, granularity in targets:
        rows["bm25"] += run_bench([target], backends, [Mode.BM25], [granularity], embedder_factory)
        for model in models:
            factory = functools.partial(embedder_factory, model)
            modes = [Mode.VECTOR, Mode.HYBRID]
            rows.setdefault(model, []).extend(run_bench([target], backends, modes, [granularity], factory))
    return rows


def bench_encoders(
    *,
    models: Sequence[str],
    texts: int,
    backend_factory: Callable[[], Backend],
    embedder_factory: Callable[..., Embedder],
    out_dir: Path,
    print_line: Callable[[str], None],
) -> dict[str, Any]:
    """Run both parts, print them as plain lines, write `bench-embeddings-<time>.{json,md}`."""
    models = list(dict.fromkeys([DEFAULT_MODEL, *models]))  # every number is shown beside the float model's
    sample = find_file((SAMPLE_FILE,))
    targets = quality_targets()
    if sample is None or not targets:
        raise HarnessError(f"the encoder benchmark needs {SAMPLE_FILE} and locomo10.json in the data folders")
    turns = sample_turns(sample, texts)
    print_line(
        f"speed: {len(turns)} distinct LongMemEval-S sample turns, mean {np.mean([len(t) for t in turns]):.0f} chars"
    )
    speeds = measure_speed(models, turns, embedder_factory)
    for line in speed_lines(speeds):
        print_line(line)
    quality = measure_quality(models, backend_factory, embedder_factory, targets)
    for line in quality_lines(quality):
        print_line(line)
    report = {
        "kind": "encoder-bench",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "speed": [asdict(s) for s in speeds],
        "quality": {model: [asdict(r) for r in rows] for model, rows in quality.items()},
    }
    lines = ["# Encoder benchmark", "", f"{report['at']}", "", *speed_lines(speeds), "", *quality_lines(quality)]
    for path in write_run_files(
        out_dir, "bench-embeddings", {"json": json.dumps(report, indent=1) + "\n", "md": "\n".join(lines) + "\n"}
    ):
        print_line(f"report: {path}")
    return report


def speed_lines(speeds: Sequence[Speed]) -> list[str]:
    base = speeds[0].texts_per_s
    lines = ["| encoder | device | threads | load s | texts/s | x float | cosine to float (mean / min) |"]
    lines.append("|---|---|---|---|---|---|---|")
    for s in speeds:
        agreement = "— (other size)" if s.cosine_mean is None else f"{s.cosine_mean:.4f} / {s.cosine_min:.4f}"
        lines.append(
            f"| {s.model} | {s.device} | {s.threads} | {s.load_s:.1f} | {s.texts_per_s:.1f} | "
            f"{s.texts_per_s / base:.2f} | {agreement} |"
        )
    return lines


def quality_lines(quality: Mapping[str, Sequence[BenchRow]]) -> list[str]:
    floats = {(r.label, r.mode, r.level): r for r in quality.get(DEFAULT_MODEL, [])}
    lines = [
        "| encoder | file | mode | level | n | R@5 | R@10 | MRR | R@10 - float |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for model, rows in quality.items():
        for r in rows:
            cells = " | ".join("—" if r.metrics[m] is None else f"{r.metrics[m]:.3f}" for m in QUALITY)
            base = floats.get((r.label, r.mode, r.level))
            ours = r.metrics["recall_any@10"]
            theirs = base.metrics["recall_any@10"] if base is not None else None
            delta = (
                f"{ours - theirs:+.3f}" if model != DEFAULT_MODEL and ours is not None and theirs is not None else ""
            )
            lines.append(f"| {model} | {r.label} | {r.mode} | {r.level} | {r.questions} | {cells} | {delta} |")
    return lines
