"""Servers: the harness's own are unreachable from other containers, password-protected, and
reported at once when they die at start; on a user's server (`--url`) a killed run's namespaces
are recorded, reported and removable, the server's own data untouched. Every local server backend."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import docker
import pytest

from harness.backends.base import IndexSpec
from harness.backends.ledger import EXTENSION, NAMESPACE, STATE_DIR_ENV, Ledger
from harness.backends.provision import start_server
from harness.backends.recorded import RecordedBackend, remove_leftovers
from harness.containers import ContainerError, docker_client, load_spec, remove_run, start_container
from harness.containers.labels import RUN
from harness.containers.network import NETWORK
from harness.errors import Interrupted
from tests.conftest import Main
from tests.containers import conftest as containers
from tests.containers.conftest import LOCAL_SERVERS, ROOT
from tests.faults.helpers import kill_while

# The container tests' fixtures: local images built once, a run id whose leftovers are removed.
local_images, root, run_id = containers.local_images, containers.root, containers.run_id

PROBE_IMAGE = "harness/redis:8"
"""Any local image with bash: the neighbour that tries to reach a server."""


@pytest.fixture
def client() -> Iterator[docker.DockerClient]:
    engine = docker_client()
    yield engine
    engine.close()


def tcp_probe(client: docker.DockerClient, run: str, address: str, port: int, network: str | None = None) -> int:
    """Exit status of a neighbour container opening a TCP connection to address:port (0: it could)."""
    neighbour = client.containers.run(
        PROBE_IMAGE,
        ["bash", "-c", f"timeout 3 bash -c '</dev/tcp/{address}/{port}'"],
        detach=True,
        labels={RUN: run},  # removed with the run if anything below fails
        **({"network": network} if network else {}),
    )
    try:
        return int(neighbour.wait(timeout=30)["StatusCode"])
    finally:
        neighbour.remove(force=True)


def refuses_without_password(backend: str, url: str) -> str:
    """The error a client without the password gets (and proof that the password works)."""
    parts = urlsplit(url)
    if backend == "postgres":
        import psycopg

        with psycopg.connect(url, connect_timeout=5) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        with pytest.raises(psycopg.OperationalError) as refused:
            psycopg.connect(
                host=parts.hostname, port=parts.port, user="harness", dbname="harness", password="", connect_timeout=5
            )
        return str(refused.value)
    import redis

    assert redis.Redis.from_url(url).set("with-password", "1")
    with pytest.raises(redis.AuthenticationError) as refused:
        redis.Redis(host=parts.hostname or "", port=parts.port or 0).dbsize()
    return str(refused.value)


@pytest.mark.parametrize("backend", LOCAL_SERVERS)
def test_other_containers_cannot_reach_the_server(
    backend: str, root: Path, run_id: str, client: docker.DockerClient
) -> None:
    spec = load_spec(backend, root)
    running = start_container(spec, run_id)
    try:
        settings = client.containers.get(running.name).attrs["NetworkSettings"]["Networks"]
        assert "bridge" not in settings, "the server must not sit on Docker's default bridge"
        ((network_name, endpoint),) = settings.items()
        address = endpoint["IPAddress"]
        # A container on the default bridge (any other container on the host) gets nowhere ...
        assert tcp_probe(client, run_id, address, spec.port) != 0
        # ... where one on the run's own network does, so the probe itself can succeed.
        assert tcp_probe(client, run_id, address, spec.port, network=network_name) == 0
        network = client.networks.get(network_name)
        assert network.attrs["Labels"][RUN] == run_id
        assert NETWORK in network.attrs["Labels"]
    finally:
        running.stop()
    assert client.api.networks(filters={"label": f"{RUN}={run_id}"}) == [], "the run's network must go with it"


@pytest.mark.parametrize("backend", LOCAL_SERVERS)
def test_a_client_without_the_password_is_refused(backend: str, root: Path, run_id: str) -> None:
    first = start_container(load_spec(backend, root), run_id)
    second = start_container(load_spec(backend, root), run_id)
    try:
        error = refuses_without_password(backend, first.url)
        assert "password" in error if backend == "postgres" else "authenticated" in error, error
        passwords = {urlsplit(r.url).password for r in (first, second)}
        assert len(passwords) == 2
        assert None not in passwords
        assert "harness" not in passwords
    finally:
        first.stop()
        second.stop()


def test_remove_run_removes_its_network(root: Path, run_id: str, client: docker.DockerClient) -> None:
    running = start_container(load_spec("valkey", root), run_id)
    assert len(client.api.networks(filters={"label": f"{RUN}={run_id}"})) == 1
    remove_run(run_id)
    assert client.api.networks(filters={"label": f"{RUN}={run_id}"}) == []
    running.stop()  # already gone: still fine


@pytest.mark.parametrize("backend", LOCAL_SERVERS)
def test_a_container_that_exits_at_start_is_reported_at_once(
    backend: str, root: Path, run_id: str, client: docker.DockerClient
) -> None:
    spec = replace(
        load_spec(backend, root),
        command=("sh", "-c", "echo starting-and-failing; exit 3"),
        startup_timeout=120,
    )
    began = time.monotonic()
    with pytest.raises(ContainerError) as info:
        start_container(spec, run_id)
    waited = time.monotonic() - began
    first, *tail = str(info.value).splitlines()
    assert first.startswith(f"{backend}: container exited at start with code 3"), first
    assert "starting-and-failing" in "\n".join(tail)  # the entrypoint's own stderr lines may interleave
    assert waited < spec.startup_timeout / 4, f"waited {waited:.0f}s for a container that had exited"
    assert client.containers.list(all=True, filters={"label": f"{RUN}={run_id}"}) == []


# -- `--url`: what a run creates on a server it did not start ------------------------------------


def harness(*args: str, state: Path, out: Path | None) -> subprocess.Popen[str]:
    """`harness ARGS` in a process of its own, with its ledger under `state`: for what needs one (a run
    killed, `up` stopped by a signal, runs at once); a run that ends by itself is `in_process`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), STATE_DIR_ENV: str(state)}
    return subprocess.Popen(
        [sys.executable, "-c", "from harness.cli import main; main()", *args, *(("--out", str(out)) if out else ())],
        cwd=out.parent if out else ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(process: subprocess.Popen[str], timeout: float = 120) -> tuple[int, str, str]:
    stdout, stderr = process.communicate(timeout=timeout)
    return process.returncode, stdout, stderr


def in_process(harness_main: Main, *args: str, state: Path, out: Path | None) -> tuple[int, str, str]:
    """`harness ARGS` run to its end in this process, as `harness` runs it in a process of its own."""
    done = harness_main(
        *args, *(("--out", str(out)) if out else ()), cwd=out.parent if out else ROOT, **{STATE_DIR_ENV: str(state)}
    )
    return done.returncode, done.stdout, done.stderr


class RedisServer:
    """Foreign data of several types, and a snapshot of every key byte for byte."""

    def __init__(self, url: str):
        import redis

        self.client = redis.Redis.from_url(url)

    def seed(self) -> None:
        c = self.client
        c.set("app:greeting", b"hello \x00 world")
        c.hset("app:user:1", mapping={"name": "Ada", "h:{x}:field": "1"})
        c.rpush("app:queue", "a", "b", "c")
        c.sadd("app:tags", "x", "y")
        c.zadd("app:scores", {"ada": 1.5, "bob": 2})
        c.xadd("app:stream", {"event": "start"})
        c.set("h:{not-the-harness}:doc:1", "a key that only looks like the harness's")
        c.set("app:expiring", "v", ex=3600)

    def snapshot(self) -> dict[bytes, tuple[bytes | None, bool]]:
        return {k: (self.client.dump(k), self.client.ttl(k) > 0) for k in self.client.scan_iter(count=1000)}

    def namespace_keys(self, namespace: str) -> int:
        return sum(1 for _ in self.client.scan_iter(match=f"h:{{{namespace}}}:*", count=1000))


class PostgresServer:
    """Foreign tables in `public` and in a schema of the user's own, and a snapshot of them."""

    def __init__(self, url: str):
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)

    def seed(self) -> None:
        self.conn.execute(
            """
            CREATE TABLE public.notes (id int PRIMARY KEY, body text, data bytea);
            INSERT INTO public.notes VALUES (1, 'first', '\\x00ff'), (2, 'second', NULL);
            CREATE SCHEMA app;
            CREATE TABLE app.events (id bigint, at timestamptz DEFAULT '2026-01-01', kind text);
            INSERT INTO app.events (id, kind) VALUES (1, 'start'), (2, 'stop');
            CREATE SCHEMA ns_not_the_harness;
            CREATE TABLE ns_not_the_harness.docs (id text);
            INSERT INTO ns_not_the_harness.docs VALUES ('looks like the harness''s');
            """
        )

    def snapshot(self) -> dict[str, object]:
        tables = self.conn.execute(
            "SELECT table_schema, table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2"
        ).fetchall()
        rows = {
            f"{schema}.{table}": self.conn.execute(f'SELECT t::text FROM "{schema}"."{table}" t ORDER BY 1').fetchall()
            for schema, table in tables
        }
        schemas = self.conn.execute("SELECT nspname FROM pg_namespace ORDER BY 1").fetchall()
        extensions = self.conn.execute("SELECT extname FROM pg_extension ORDER BY 1").fetchall()
        return {"rows": rows, "schemas": schemas, "extensions": extensions}

    def namespace_keys(self, namespace: str) -> int:
        return len(self.conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (f"ns_{namespace}",)).fetchall())


def written(ledger: Ledger, server: RedisServer | PostgresServer) -> str | None:
    """A namespace the ledger holds that has data on the server, if any."""
    return next((e.name for e in ledger.entries() if e.kind == NAMESPACE and server.namespace_keys(e.name) > 0), None)


@pytest.mark.parametrize("backend", LOCAL_SERVERS)
def test_a_killed_url_run_leaves_a_ledger_that_down_url_clears(
    backend: str, run_id: str, tmp_path: Path, harness_main: Main
) -> None:
    url, container = start_server(backend, run_id)
    state, out = tmp_path / "state", tmp_path / "reports"
    try:
        server = PostgresServer(url) if backend == "postgres" else RedisServer(url)
        server.seed()
        before = server.snapshot()
        ledger = Ledger(url, state)
        extra = ["--allow-extension"] if backend == "postgres" else []

        run = harness("run", "-b", backend, "--url", url, "-m", "bm25", *extra, state=state, out=out)
        namespace = kill_while(run, lambda: written(ledger, server), within=120)
        assert server.namespace_keys(namespace) > 0
        left = ledger.leftovers()
        assert namespace in {e.name for e in left if e.kind == NAMESPACE}
        assert all(e.backend == backend for e in left)
        if backend == "postgres":
            assert [e.name for e in left if e.kind == EXTENSION] == ["vector"]

        # the next run says so, in one line with the command that clears it
        rc, _, stderr = in_process(
            harness_main, "run", "-b", backend, "--url", url, "-m", "bm25", "--limit", "1", *extra, state=state, out=out
        )
        notes = [line for line in stderr.splitlines() if "left on" in line]
        assert len(notes) == 1, stderr
        assert "harness down --url" in notes[0], stderr
        assert urlsplit(url).password not in notes[0], "the note must not print the password"

        rc, stdout, stderr = in_process(harness_main, "down", "--url", url, state=state, out=None)
        assert rc == 0, stderr
        assert f"namespace {namespace}" in stdout
        assert server.namespace_keys(namespace) == 0
        assert ledger.entries() == []
        assert server.snapshot() == before, "down --url must remove the harness's leftovers and nothing else"
    finally:
        container.stop()


def test_postgres_url_creates_the_extension_only_when_allowed_and_drops_it(
    run_id: str, tmp_path: Path, harness_main: Main
) -> None:
    url, container = start_server("postgres", run_id)
    state, out = tmp_path / "state", tmp_path / "reports"
    try:
        server = PostgresServer(url)
        server.seed()
        before = server.snapshot()
        assert ("vector",) not in before["extensions"]  # type: ignore[operator]

        rc, stdout, stderr = in_process(
            harness_main, "run", "-b", "postgres", "--url", url, "-m", "bm25", state=state, out=out
        )
        assert rc == 3, stdout + stderr
        errors = [line for line in stderr.splitlines() if line.strip()]
        assert len(errors) == 1, stderr
        assert "'vector' extension" in errors[0], stderr
        assert "--allow-extension" in errors[0], stderr
        assert server.snapshot() == before

        allowed = ("run", "-b", "postgres", "--url", url, "-m", "bm25", "--limit", "2", "--allow-extension")
        rc, stdout, stderr = in_process(harness_main, *allowed, state=state, out=out)
        assert rc == 0, stdout + stderr
        assert server.snapshot() == before, "the run must drop the extension it created"
        assert Ledger(url, state).entries() == []

        # one the user created stays
        server.conn.execute("CREATE EXTENSION vector")
        with_extension = server.snapshot()
        rc, stdout, stderr = in_process(harness_main, *allowed, state=state, out=out)
        assert rc == 0, stdout + stderr
        assert server.snapshot() == with_extension
    finally:
        container.stop()


# -- the ledger itself (no server needed) --------------------------------------------------------


def _record_and_forget(folder: str, worker: int) -> None:
    ledger = Ledger("redis://127.0.0.1:6399/0", Path(folder))
    for i in range(50):
        ledger.record("redis", NAMESPACE, f"w{worker}n{i}")
        if i % 2:
            ledger.forget(NAMESPACE, f"w{worker}n{i}")


def test_concurrent_runs_keep_their_own_entries(tmp_path: Path) -> None:
    with ProcessPoolExecutor(4) as pool:
        list(pool.map(_record_and_forget, [str(tmp_path)] * 4, range(4)))
    entries = Ledger("redis://127.0.0.1:6399/0", tmp_path).entries()
    assert sorted(e.name for e in entries) == sorted(f"w{w}n{i}" for w in range(4) for i in range(0, 50, 2))
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".json" and p.name != ".key"], (
        "no half-written files (the ledger's key aside)"
    )


def test_one_ledger_per_server_whatever_the_credentials(tmp_path: Path) -> None:
    def folder(url: str) -> Path:
        return Ledger(url, tmp_path).folder

    assert folder("redis://:a@LocalHost:6379/0") == folder("redis://:b@localhost/0?socket_timeout=3")
    assert folder("postgres://u:p@h/db") == folder("postgresql://other@h:5432/db")
    assert folder("redis://h:6379/0") != folder("redis://h:6379/1")
    assert folder("postgresql://h/db") != folder("postgresql://h/other")


def test_down_url_leaves_what_live_runs_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path))
    url = "redis://:secret@127.0.0.1:1/0"  # nothing listens: nothing may be touched
    Ledger(url).record("redis", NAMESPACE, "hlive")  # this process: alive
    assert Ledger(url).leftovers() == []
    result = remove_leftovers(url)
    assert result.removed == []
    assert [(e.name, e.pid) for e, _ in result.kept] == [("hlive", os.getpid())]
    assert [e.name for e in Ledger(url).entries()] == ["hlive"]


@pytest.mark.usefixtures("local_images")
def test_harness_up_prints_the_url_with_its_password(tmp_path: Path) -> None:
    import redis

    up = harness("up", "valkey", state=tmp_path, out=None)
    try:
        assert up.stdout is not None
        url = ""
        for line in up.stdout:
            if line.strip().startswith("url:"):
                url = line.split("url:", 1)[1].strip()
                break
        assert urlsplit(url).password, f"no password in {url!r}"
        assert redis.Redis.from_url(url).ping()
        parts = urlsplit(url)
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(host=parts.hostname or "", port=parts.port or 0).dbsize()
    finally:
        up.send_signal(signal.SIGINT)
        up.communicate(timeout=60)
    client = docker_client()
    try:
        assert client.containers.list(all=True, filters={"label": f"harness.pid={up.pid}"}) == []
        assert client.api.networks(filters={"label": f"harness.pid={up.pid}"}) == []
    finally:
        client.close()


def test_a_name_a_live_run_reuses_is_not_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path))
    url = "redis://127.0.0.1:1/0"  # nothing listens: a drop would fail the test
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from harness.backends.ledger import Ledger; Ledger({url!r}).record('redis', 'namespace', 'dataset_0_turns')",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert killed.returncode == 0
    Ledger(url).record("redis", NAMESPACE, "dataset_0_turns")
    assert len(Ledger(url).entries()) == 2
    result = remove_leftovers(url)
    assert result.removed == []
    assert [e.pid for e, _ in result.kept] == [os.getpid()]
    assert [e.pid for e in Ledger(url).entries()] == [os.getpid()]


class _LostServer:
    """A backend whose server went away: dropping anything fails."""

    name = "postgres"
    closed = False

    def drop_extension(self, oid: int) -> bool:
        raise OSError(f"server closed the connection unexpectedly (dropping extension {oid})")

    def close(self) -> None:
        self.closed = True


def test_a_failed_extension_drop_at_the_end_is_a_notice_not_the_runs_outcome(tmp_path: Path) -> None:
    """An interrupted run whose clean-up fails still ends as interrupted (not with a traceback),
    says what it left, and keeps the ledger entry that `harness down --url` needs."""
    ledger = Ledger("postgresql://127.0.0.1:1/db", tmp_path)
    ledger.record("postgres", EXTENSION, "vector", oid=7)
    lost, notices = _LostServer(), []
    backend = RecordedBackend(lost, ledger, notices.append, extension_oid=7)  # type: ignore[arg-type]

    def interrupted_run() -> None:
        try:
            raise Interrupted("SIGINT", 130)
        finally:
            backend.close()

    with pytest.raises(Interrupted):
        interrupted_run()
    assert lost.closed
    (notice,) = notices
    assert "could not drop the 'vector' extension" in notice, notice
    assert "server closed the connection" in notice, notice
    assert "harness down --url" in notice, notice
    assert [(e.kind, e.name) for e in ledger.entries()] == [(EXTENSION, "vector")]


class _HalfCreating:
    """A backend whose index creation fails half-way (Atlas without mongot; a signal mid-DDL)."""

    name = "atlas"

    def __init__(self) -> None:
        self.on_server: set[str] = set()

    def create_index(self, namespace: str, spec: object) -> None:  # noqa: ARG002 - the protocol's signature
        self.on_server.add(namespace)
        raise Interrupted("SIGTERM", 143)

    def drop_namespace(self, namespace: str) -> None:
        self.on_server.discard(namespace)


def test_a_namespace_whose_creation_failed_half_way_is_dropped_and_forgotten(tmp_path: Path) -> None:
    ledger = Ledger("mongodb://127.0.0.1:1", tmp_path)
    engine = _HalfCreating()
    backend = RecordedBackend(engine, ledger, print)  # type: ignore[arg-type]
    with pytest.raises(Interrupted):
        backend.create_index("h0123456789ab", IndexSpec({"name": 1.0}))
    assert engine.on_server == set()
    assert ledger.entries() == []


class _Naming:
    """A backend that only notes the names it is asked to create."""

    name = "redis"

    def __init__(self) -> None:
        self.created: list[str] = []

    def create_index(self, namespace: str, spec: object) -> object:  # noqa: ARG002 - the protocol's signature
        self.created.append(namespace)
        return object()


def test_two_url_runs_asking_for_one_name_get_namespaces_of_their_own(tmp_path: Path) -> None:
    """A dataset run asks for fixed names (`dataset_0_turns`): two runs on one server, or a user's
    own data of that name, must never be replaced by another run's namespace."""
    ledger, engine = Ledger("redis://127.0.0.1:1/0", tmp_path), _Naming()
    for _ in range(2):
        RecordedBackend(engine, ledger, print).create_index("dataset_0_turns", IndexSpec({"name": 1.0}))  # type: ignore[arg-type]
    first, second = engine.created
    assert first != second
    assert all(name.startswith("dataset_0_turns_") for name in engine.created)
    assert sorted(e.name for e in ledger.entries()) == sorted(engine.created)
