"""How the harness talks to an HTTP system beyond the operations: adds in batches where the
service declares `harness-memory/1.1`'s `batch_add` (one record per `POST /add` otherwise), and
no harness encoder for a system that embeds on its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reports.pages import harness
from tests.systems.memory_server import Store, serving

BUILTIN_RECORDS = 45
"""Memories of the built-in corpus: the static cases' namespace holds them all."""
UNLOADABLE = "sentence-transformers/not-a-model-here"


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def _adds(store: Store, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    mode = store.modes[0] if store.extended else "hybrid"  # a bare wrapper's one retrieval
    with serving(store) as url:
        code = harness(tmp_path, "run", "--system", f"http:{url}", "-m", mode, "--out", "out", *extra)
    (path,) = [p for p in (tmp_path / "out").glob("run-embedded-http*.json") if "latest" not in p.name]
    return code, json.loads(path.read_text())


@pytest.mark.parametrize("extended", [False, True])
def test_one_record_per_add_without_batch_add(tmp_path: Path, extended: bool) -> None:
    """The bare contract and a `harness-memory/1` service get one record per `POST /add`."""
    store = Store(extended=extended)
    code, report = _adds(store, tmp_path, "--limit", "1")
    assert code == 0
    assert report["cases"]
    assert store.added >= BUILTIN_RECORDS  # the corpus, at least once
    assert store.adds == store.added


def test_batches_where_the_service_declares_batch_add(tmp_path: Path) -> None:
    batched = Store(extended=True, batch=16)
    code, report = _adds(batched, tmp_path, "--limit", "1")
    single = Store(extended=True)
    (tmp_path / "single").mkdir()
    code_single, report_single = _adds(single, tmp_path / "single", "--limit", "1")
    assert code == code_single == 0
    assert batched.added == single.added  # the same records reach the service
    assert batched.adds < batched.added / 4  # in requests of up to 16 (the server refuses more), not one each
    judged = [(c["case_id"], c["turn"], c["retrieved"], c["passed"]) for c in report["cases"]]
    assert judged == [(c["case_id"], c["turn"], c["retrieved"], c["passed"]) for c in report_single["cases"]]


def test_batch_add_that_is_not_a_count_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(extended=True, batch=2)
    store.declared = lambda: {"protocol": "harness-memory/1.1", "batch_add": "many", "capabilities": []}  # type: ignore[method-assign]
    with serving(store) as url:
        assert harness(tmp_path, "run", "--system", f"http:{url}", "-m", "bm25", "--out", "out") == 2
    err = capsys.readouterr().err
    assert (
        "GET /capabilities does not fit the protocol (docs/system-protocol.md): batch_add: Input should be a valid integer (got 'many')"
        in err
    )
    assert "Traceback" not in err


def test_an_http_system_in_hybrid_loads_no_encoder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No text of this model is cached and it cannot load here: the reference system's hybrid run
    fails on it (exit 3), an HTTP system's, which embeds on its own, never asks for it."""
    tmp_path.joinpath("ref").mkdir()
    assert harness(tmp_path / "ref", "run", "-m", "hybrid", "--model", UNLOADABLE, "--limit", "1") == 3
    assert f"embedding model {UNLOADABLE!r} is not available here" in capsys.readouterr().err
    with serving(Store(extended=True, modes=("hybrid",))) as url:
        args = ("run", "--system", f"http:{url}", "-m", "hybrid", "--model", UNLOADABLE, "--limit", "1")
        assert harness(tmp_path, *args, "--out", "out") == 0
    assert not (tmp_path / "user-cache").exists()  # nothing embedded (`harness` points the cache there)
