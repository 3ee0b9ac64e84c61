"""Two runs at once on one PostgreSQL server, with `--allow-extension` or one of them without:
extension creation (and its drop) takes an advisory lock and every run using the extension the
harness made shares it, so none deadlocks or fails, and the server ends as it began."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.backends.base import Filters, IndexDoc, IndexSpec
from harness.backends.ledger import STATE_DIR_ENV, Ledger
from harness.backends.provision import start_server
from harness.backends.recorded import open_recorded
from tests.faults.test_servers import PostgresServer, finished, harness, local_images, root, run_id  # noqa: F401


def test_two_runs_creating_the_extension_at_once_both_finish(run_id: str, tmp_path: Path) -> None:  # noqa: F811
    url, container = start_server("postgres", run_id)
    try:
        server = PostgresServer(url)
        server.seed()
        before = server.snapshot()
        assert ("vector",) not in before["extensions"]  # type: ignore[operator]
        args = ("run", "-b", "postgres", "--url", url, "-m", "bm25", "-m", "vector", "--allow-extension")
        runs = [harness(*args, state=tmp_path / "state", out=tmp_path / f"out{i}") for i in range(2)]
        outcomes = [finished(run, timeout=180) for run in runs]
        for rc, stdout, stderr in outcomes:
            assert rc == 0, stdout + stderr
            assert "deadlock" not in stderr.lower(), stderr
        assert server.snapshot() == before, "the extension the runs created is dropped by the last one using it"
    finally:
        container.stop()


@pytest.mark.parametrize("tables_first", [True, False], ids=["its-tables-made", "no-tables-yet"])
def test_a_run_without_allow_extension_shares_the_harness_made_extension(
    run_id: str,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tables_first: bool,
) -> None:
    """A run without `--allow-extension` used the extension another run had created, taking no lock:
    when the creator left first it dropped the extension from under that run (whose vector table
    then failed) or, the run's tables holding it, failed to and left it on the server for good. Now
    such a run shares it as the creating runs do: the last one to leave drops it."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    url, container = start_server("postgres", run_id)
    try:
        server = PostgresServer(url)
        before = server.snapshot()
        assert ("vector",) not in before["extensions"]  # type: ignore[operator]
        notices: list[str] = []
        creator = open_recorded("postgres", url, True, notices.append)
        user = open_recorded("postgres", url, False, notices.append)  # two runs at once on one server
        spec = IndexSpec({"text": 1.0}, dimensions=3)
        index = user.create_index("shared", spec) if tables_first else None
        creator.close()  # the creating run finishes first
        index = index or user.create_index("shared", spec)
        index.upsert([IndexDoc("d-1", {"text": "a word"}, vector=np.array([1.0, 0.0, 0.0], dtype=np.float32))])
        assert [hit.id for hit in index.vector(np.array([1.0, 0.0, 0.0], dtype=np.float32), Filters(), 1)] == ["d-1"]
        index.drop()
        user.close()
        assert notices == []
        assert server.snapshot() == before, "the last run to leave drops the extension the harness created"
        assert Ledger(url, tmp_path / "state").entries() == []
    finally:
        container.stop()
