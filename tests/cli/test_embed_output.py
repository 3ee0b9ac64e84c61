"""`harness embed` names the folder it wrote the vectors into, and that folder holds them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from harness.embeddings import model_folder
from tests.conftest import Main
from tests.faults.helpers import write_suite

# found, not imported: torch imported at collection would load in every xdist worker
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None, reason="embedding needs the embed extra"
)


@pytest.mark.parametrize("where", ["--out", "HARNESS_CACHE_DIR"])
def test_embed_prints_the_cache_folder_it_wrote(harness_main: Main, tmp_path: Path, where: str) -> None:
    suite = write_suite(tmp_path / "suite", 2)
    cache = tmp_path / "cache"
    args = ["embed", "-s", str(suite), *(["--out", str(cache)] if where == "--out" else [])]
    result = harness_main(
        *args, cwd=tmp_path, HARNESS_CACHE_DIR=str(cache if where != "--out" else tmp_path / "unused")
    )
    assert result.returncode == 0, result.stderr
    folder = cache / model_folder("all-MiniLM-L6-v2")
    assert result.stdout.strip().endswith(f"newly embedded with all-MiniLM-L6-v2 into {folder}"), result.stdout
    assert any(folder.glob("*.npz")), "the printed folder must hold the vectors"


@pytest.mark.parametrize("option", [["--workers", "2"], ["--shard", "1/2"]])
def test_a_dataset_option_without_a_dataset_is_one_line_of_bad_input(
    harness_main: Main, tmp_path: Path, option: list[str]
) -> None:
    result = harness_main("embed", *option, cwd=tmp_path, HARNESS_CACHE_DIR=str(tmp_path / "cache"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"harness: error: {option[0]} applies to a dataset: give --dataset too"
    assert not (tmp_path / "cache").exists()
