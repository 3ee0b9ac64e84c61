"""mem0 through the system protocol on PostgreSQL + pgvector: ingest with `infer=False`, ids
round-tripped, users kept apart, telemetry off, and reset/close removing only its own table."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.backends import registry as backends
from harness.errors import HarnessError
from harness.pipeline.settings import Mode
from harness.systems import mem0 as mem0_system
from harness.systems import registry
from harness.systems.protocol import Capability, Query, Record, Unsupported
from tests.reports.pages import harness
from tests.systems.helpers_adapters import TEXTS, Ledger, killed_run, opening, require_extra
from tests.systems.same_report import timeless

require_extra("mem0", "mem0")


@pytest.fixture
def engine(server_url) -> Iterator:
    url = server_url("postgres")
    backend = backends.connect("postgres", url)
    yield "postgres", url, backend
    backend.close()


def _tables(url: str) -> set[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'").fetchall()
    return {r[0] for r in rows}


def _opened(engine, ledger: Ledger):
    name, url, backend = engine
    return mem0_system.open_mem0(opening(backend, name, url, ledger))


def test_registered_for_postgres_only() -> None:
    spec = registry.resolve("mem0")
    assert spec is mem0_system.SPEC
    assert [b for b in ("embedded", "postgres", "redis", "valkey") if spec.runs_on(b)] == ["postgres"]


@pytest.mark.postgres
def test_search_round_trips_ids_with_scores_and_telemetry_off(engine) -> None:
    system = _opened(engine, Ledger())
    from mem0.memory import telemetry

    try:
        assert telemetry.MEM0_TELEMETRY is False
        system.add([Record(id=i, text=t, user="user:1") for i, t in TEXTS.items()])
        found = system.search(Query(text="what is my dog called", user="user:1"), Mode.HYBRID)
        assert found[0].id == "id:1/dog"
        assert found[0].text == TEXTS["id:1/dog"]
        assert found[0].score is not None
        assert {f.id for f in found} <= set(TEXTS)
        with pytest.raises(ValueError, match="bm25"):
            system.search(Query(text="dog", user="user:1"), Mode.BM25)
    finally:
        system.close()


@pytest.mark.postgres
def test_users_never_see_each_other(engine) -> None:
    system = _opened(engine, Ledger())
    try:
        system.add(
            [
                Record(id="mine", text="my dog is called Rex", user="user:1"),
                Record(id="theirs", text="my dog is called Bo", user="user:2"),
            ]
        )
        assert [f.id for f in system.search(Query(text="my dog is called", user="user:1"), Mode.HYBRID)] == ["mine"]
        assert [f.id for f in system.search(Query(text="my dog is called", user="user:2"), Mode.HYBRID)] == ["theirs"]
    finally:
        system.close()


@pytest.mark.postgres
def test_reset_and_close_touch_only_its_table(engine) -> None:
    _, url, _ = engine
    ledger = Ledger()
    neighbour = _opened(engine, Ledger())
    system = _opened(engine, ledger)
    table = f"mem0_{system.opening.namespace}"
    try:
        neighbour.add([Record(id="n", text="my dog is called Rex", user="u")])
        system.add([Record(id="s", text="my dog is called Rex", user="u")])
        assert table in _tables(url)

        system.reset()
        assert system.search(Query(text="my dog is called Rex", user="u"), Mode.HYBRID) == []
        assert [f.id for f in neighbour.search(Query(text="my dog is called Rex", user="u"), Mode.HYBRID)] == ["n"]

        history = system.history
        system.close()
        assert table not in _tables(url)
        assert f"mem0_{neighbour.opening.namespace}" in _tables(url)
        assert [f.id for f in neighbour.search(Query(text="my dog is called Rex", user="u"), Mode.HYBRID)] == ["n"]
        assert ledger.recorded == ledger.forgotten == [system.opening.namespace]
        assert not os.path.exists(history)
    finally:
        neighbour.close()


@pytest.mark.postgres
def test_undeclared_operations_are_refused(engine) -> None:
    system = _opened(engine, Ledger())
    try:
        assert Capability.CONSOLIDATION not in system.info.capabilities
        with pytest.raises(Unsupported):
            system.consolidate()
    finally:
        system.close()


@pytest.mark.redis
def test_other_engines_are_refused_in_one_line(server_url) -> None:
    url = server_url("redis")
    backend = backends.connect("redis", url)
    try:
        with pytest.raises(HarnessError, match="runs on postgres"):
            mem0_system.open_mem0(opening(backend, "redis", url, Ledger()))
    finally:
        backend.close()


@pytest.mark.postgres
def test_down_url_removes_a_killed_runs_table_only(server_url, tmp_path: Path) -> None:
    """A mem0 run on a given server, killed by SIGKILL mid-run, leaves its table (and history
    file); `harness down --url` removes them by the run's ledger, and no foreign table."""
    import psycopg

    url = server_url("postgres")
    foreign = ("harness_test_foreign_notes", "mem0_hforeign000001")
    env = {"HARNESS_STATE_DIR": str(tmp_path / "state"), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()

    def ours() -> set[str]:
        return {t for t in _tables(url) if t.startswith("mem0_h") and t not in foreign}

    def filled() -> bool:
        try:
            with psycopg.connect(url) as conn:
                return any(conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone() for t in ours())
        except psycopg.errors.UndefinedTable:  # closed meanwhile by the run
            return False

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # a pgvector server, as mem0 needs
        for name in foreign:
            conn.execute(f'CREATE TABLE "{name}" (note text)')
    try:
        args = ["run", "--system", "mem0", "-b", "postgres", "--url", url, "-m", "hybrid", "--out", "out"]
        killed_run(tmp_path, args, filled, env)
        assert ours()  # what the killed run left
        systems = tmp_path / "state" / "systems"
        assert list(systems.glob("*/mem0/harness-mem0-*")), "its history file, in the run's own folder"
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("HARNESS_STATE_DIR", env["HARNESS_STATE_DIR"])
            assert harness(tmp_path, "down", "--url", url) == 0
        assert ours() == set()
        assert set(foreign) <= _tables(url)
        assert list(systems.iterdir()) == [], "the killed process's folder is gone with its table"
        # torch's compile cache (`torchinductor_<user>`), made in TMPDIR when transformers imports
        # torch._dynamo as it loads the encoder, is torch's, shared by every process on the machine
        left = [p.name for p in (tmp_path / "tmp").iterdir() if not p.name.startswith("torchinductor_")]
        assert left == [], "nothing of the run's own in TMPDIR"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            for name in foreign:
                conn.execute(f'DROP TABLE IF EXISTS "{name}"')


def test_at_concurrency_n_it_reports_what_it_reports_serially(
    server_url, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """mem0's namespaces on 4 workers at once (a `Memory` each, its own history database and
    pgvector pool): the serial run's report, item by item, its tables and the run's mem0 folder
    gone after, and no word of running serially."""
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    url = server_url("postgres")
    before = _tables(url)
    reports = []
    for concurrency in (1, 4):
        out = tmp_path / f"at{concurrency}"
        args = ["run", "--system", "mem0", "-b", "postgres", "--url", url, "--allow-extension", "-m", "hybrid"]
        assert (
            harness(tmp_path, *args, "-s", "haystack:builtin", "--out", str(out), "--concurrency", str(concurrency))
            == 0
        )
        (path,) = [p for p in out.glob("*.json") if "latest" not in p.name]
        reports.append(json.loads(path.read_text()))
    assert [r["concurrency"] for r in reports] == [1, 4]
    assert "runs at concurrency" not in capsys.readouterr().err
    assert len(reports[0]["questions"]) > 1
    assert timeless(reports[1]) == timeless(reports[0])
    assert _tables(url) == before
    systems = tmp_path / "state" / "systems"
    assert not systems.exists() or list(systems.iterdir()) == []
