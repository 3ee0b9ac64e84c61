"""Public datasets as suites: which files a dataset is, where they are looked for, and the
questions a run selects from one.

Nothing is downloaded: a missing file is a `HarnessError` saying where to get it and where to put it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.models.haystack import DatasetReader
from harness.resources import shared_datasets_dir
from harness.shards import Shard
from harness.suites.compressed import published_names
from harness.suites.locomo import LoCoMoFile
from harness.suites.longmemeval import LongMemEvalFile
from harness.suites.resolve import cases_dir
from harness.suites.sampling import SampleMethod, select

DATA_DIR_ENV = "HARNESS_DATA_DIR"

_LONGMEMEVAL_SOURCE = "the LongMemEval release (Hugging Face dataset xiaowu0162/longmemeval-cleaned)"


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """A dataset the harness reads: its file names, where users get it, and its reader."""

    title: str
    files: tuple[str, ...]
    source: str
    reader: Callable[[Path], DatasetReader]
    builtin: bool = False
    """Its file ships in `cases/` (its `files` are relative to it), so it is always there."""


SPECS: dict[str, DatasetSpec] = {
    "longmemeval-s": DatasetSpec(
        "LongMemEval-S", ("longmemeval_s_cleaned.json", "longmemeval_s.json"), _LONGMEMEVAL_SOURCE, LongMemEvalFile
    ),
    "longmemeval-m": DatasetSpec(
        "LongMemEval-M", ("longmemeval_m_cleaned.json", "longmemeval_m.json"), _LONGMEMEVAL_SOURCE, LongMemEvalFile
    ),
    "longmemeval-oracle": DatasetSpec(
        "LongMemEval oracle", ("longmemeval_oracle.json",), _LONGMEMEVAL_SOURCE, LongMemEvalFile
    ),
    "locomo": DatasetSpec(
        "LoCoMo", ("locomo10.json",), "the LoCoMo repository (github.com/snap-research/locomo, data/)", LoCoMoFile
    ),
    "builtin": DatasetSpec(
        "the built-in haystack suite",
        ("haystack/builtin.json",),
        "the harness itself (cases/haystack/, in LongMemEval's format)",
        LongMemEvalFile,
        builtin=True,
    ),
}
DATASETS = frozenset(SPECS)


def data_dirs() -> list[Path]:
    """Folders searched for dataset files: `$HARNESS_DATA_DIR`, then `../shared/datasets`."""
    dirs = [Path(d) for d in [os.environ.get(DATA_DIR_ENV)] if d]
    return [*dirs, shared_datasets_dir()]


def find_file(names: Sequence[str]) -> Path | None:
    """The first of `names` in the data folders, plain or compressed (`.gz`, `.xz`, `.zst`)."""
    candidates = (d / n for d in data_dirs() for name in names for n in published_names(name))
    return next((path for path in candidates if path.is_file()), None)


def resolve_file(dataset: str, file: Path | None) -> Path:
    """The file to read: `--file` if given, else the first known file name in the data folders."""
    spec = _spec(dataset)
    if file is not None:
        if not file.exists():
            raise HarnessError(f"{spec.title} file {file} does not exist (check --file)")
        if not file.is_file():  # a FIFO would block, a device never ends
            raise HarnessError(f"{spec.title} file {file} is not a regular file (check --file)")
        return file
    if spec.builtin:
        return cases_dir() / spec.files[0]
    if (found := find_file(spec.files)) is not None:
        return found
    looked = ", ".join(str(d) for d in data_dirs())
    raise HarnessError(
        f"{spec.title} data not found: looked for {' or '.join(spec.files)} (plain, .gz, .xz or .zst) in {looked}. Nothing is downloaded "
        f"at run time: get {spec.files[0]} from {spec.source}, then pass --file PATH or put it in "
        f"${DATA_DIR_ENV} or {shared_datasets_dir()}"
    )


def _spec(dataset: str) -> DatasetSpec:
    if dataset not in SPECS:
        raise HarnessError(f"unknown dataset {dataset!r}: choose one of {', '.join(sorted(SPECS))}")
    return SPECS[dataset]


def open_selection(
    dataset: str,
    file: Path | None,
    *,
    limit: int | None = None,
    sample: SampleMethod = SampleMethod.HEAD,
    seed: int = 0,
    shard: Shard | None = None,
) -> Selection:
    """The questions a run asks, checked before any work so mistakes cost nothing: the file,
    sampled (`harness.suites.sampling`), then cut to the shard (by question id)."""
    path = resolve_file(dataset, file)
    method = SampleMethod(sample)
    if limit is not None and limit < 1:
        raise HarnessError(f"--limit must be at least 1, got {limit}")
    reader = SPECS[dataset].reader(path)
    refs = reader.scan() if method is not SampleMethod.HEAD or shard is not None else None
    selected = select(refs, limit, method, seed)
    if shard is not None and refs is not None:
        chosen = [r for r in refs if selected is None or r.position in selected]
        selected = frozenset(r.position for r in shard.keep(chosen))
    if refs is not None:
        total: int | None = len(refs)
    else:
        total = reader.count() if limit is None else None  # `--limit` with `head` reads only what it asks
    return Selection(dataset, path, reader, selected, total, limit, str(method), seed, shard)


@dataclass(frozen=True, slots=True)
class Selection:
    """Which questions of a dataset file a run asks, as sampling and sharding chose them."""

    dataset: str
    path: Path
    reader: DatasetReader
    selected: frozenset[int] | None
    """Question positions to ask (None: all)."""
    total: int | None
    """Questions in the file (None when it was neither scanned nor counted: `--limit` with `head`)."""
    limit: int | None = None
    sample: str = "head"
    seed: int = 0
    shard: Shard | None = None

    @property
    def expected(self) -> int | None:
        return len(self.selected) if self.selected is not None else self.total
