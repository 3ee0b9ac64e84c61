"""Files that hang or exhaust a reader, and NaN: never read past a limit or from a non-regular
file, never written into a report or compared in a gate, never reused from the embedding cache."""

from __future__ import annotations

import json
import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from harness.baselines.key import BaselineKey
from harness.baselines.store import BadBaseline, BaselineStore
from harness.embeddings.cache import CacheWarning, EmbeddingCache, model_folder
from harness.errors import CaseFileError, HarnessError
from harness.reports.writer import NonFinite, report_json
from harness.suites.code_tasks import load_nano_brain
from tests.code_tasks.conftest import LEDGER

KEY = BaselineKey("builtin", "embedded", "bm25")


def _finishes(call, seconds: float = 20) -> object:
    """`call()`'s outcome (its value or the exception it raised), failing if it blocks or runs on."""
    outcome: list[object] = []

    def target() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still running after {seconds} s (blocked on the file?)"
    return outcome[0]


@pytest.mark.parametrize("make", ["fifo", "dev-zero"])
def test_a_baseline_that_is_not_a_regular_file_is_refused_at_once(tmp_path: Path, make: str) -> None:
    store = BaselineStore(tmp_path)
    path = store.path(KEY)
    path.parent.mkdir(parents=True)
    if make == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    outcome = _finishes(lambda: store.find(KEY))
    assert isinstance(outcome, BadBaseline), outcome
    assert str(outcome) == f"baseline {path}: not a regular file"


def test_a_nan_in_a_nano_brain_baseline_is_refused(tmp_path: Path) -> None:
    task_file = tmp_path / "tasks.json"
    task_file.write_text(json.dumps({"workspace": "w", "tasks": []}))
    (tmp_path / "baseline_v1.json").write_text('{"version": "1", "overall": NaN}')
    with pytest.raises(CaseFileError, match=r"baseline_v1\.json: overall: Input should be a finite number"):
        load_nano_brain(f"{task_file}:{LEDGER}")


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_non_finite_metric_is_never_written(value: float) -> None:
    data = {"summary": {"bm25": {"mrr": 0.5, "ndcg": value}}, "cases": [{"score": 1.0}]}
    with pytest.raises(NonFinite, match=r"^report value summary\.bm25\.ndcg is not a finite number"):
        report_json(data)
    assert NonFinite.exit_code == 1


def _cache_with_one_shard(tmp_path: Path) -> tuple[Path, np.ndarray]:
    vectors = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    EmbeddingCache("m", write_dir=tmp_path).add(["a", "b"], vectors)
    (shard,) = (tmp_path / model_folder("m")).glob("*.npz")
    return shard, vectors


@pytest.mark.parametrize("damage", ["truncated", "empty", "flipped", "nan"])
def test_a_damaged_cache_shard_is_discarded_with_a_warning(tmp_path: Path, damage: str) -> None:
    shard, vectors = _cache_with_one_shard(tmp_path)
    data = shard.read_bytes()
    if damage == "truncated":
        shard.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        shard.write_bytes(b"")
    elif damage == "flipped":  # one vector byte changed: the zip is fine, the checksum is not
        with np.load(shard) as loaded:
            raw = {name: loaded[name] for name in loaded.files}
        changed = raw["vectors"].copy()
        changed[0, 0] = 0.5
        with shard.open("wb") as handle:
            np.savez(handle, keys=raw["keys"], vectors=changed, checksum=raw["checksum"])
    else:  # NaN written by an older harness: a shard without a checksum
        with shard.open("wb") as handle:
            np.savez(handle, keys=np.array([TEXT_KEY_A, TEXT_KEY_B]), vectors=np.full((2, 2), np.nan, np.float32))
    cache = EmbeddingCache("m", write_dir=tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cache.lookup(["a", "b"]) == [None, None], "nothing of the shard is used"
    (warning,) = [w for w in caught if issubclass(w.category, CacheWarning)]
    assert str(shard) in str(warning.message)
    assert "discarded, its texts are embedded again" in str(warning.message)
    assert not shard.exists(), "a discarded shard is removed from the cache it was written to"
    cache.add(["a", "b"], vectors)
    assert np.array_equal(np.stack(EmbeddingCache("m", write_dir=tmp_path).lookup(["a", "b"])), vectors)


TEXT_KEY_A = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"  # sha256("a")
TEXT_KEY_B = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"  # sha256("b")


def test_non_finite_vectors_are_never_stored(tmp_path: Path) -> None:
    cache = EmbeddingCache("m", write_dir=tmp_path)
    with pytest.raises(HarnessError, match="model m gave 1 of 2 vectors with NaN or infinite values"):
        cache.add(["a", "b"], np.array([[1.0, 0.0], [np.nan, 1.0]], dtype=np.float32))
    assert not list(tmp_path.rglob("*.npz"))
    assert cache.lookup(["a", "b"]) == [None, None]
