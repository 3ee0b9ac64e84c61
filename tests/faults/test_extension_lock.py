"""Two runs with `--allow-extension` at once on one PostgreSQL server: extension creation (and its
drop) takes an advisory lock, so neither deadlocks nor fails, and the server ends as it began."""

from __future__ import annotations

from pathlib import Path

from harness.backends.provision import start_server
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
