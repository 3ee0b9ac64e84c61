"""Public long-memory datasets (LongMemEval, LoCoMo) run through the backends and scored."""

from harness.datasets.bench import BenchRow, BenchTarget, bench_datasets, build_synthetic_longmemeval, run_bench
from harness.datasets.command import DATASETS, embed_dataset, resolve_file, run_dataset
from harness.datasets.sampling import SampleMethod
from harness.models.haystack import Document, Granularity, Haystack, Question, QuestionRef
from harness.pipeline.settings import Mode

__all__ = [
    "DATASETS",
    "BenchRow",
    "BenchTarget",
    "Document",
    "Granularity",
    "Haystack",
    "Mode",
    "Question",
    "QuestionRef",
    "SampleMethod",
    "bench_datasets",
    "build_synthetic_longmemeval",
    "embed_dataset",
    "resolve_file",
    "run_bench",
    "run_dataset",
]
