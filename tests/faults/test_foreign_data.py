"""A run with `--url` leaves a server it did not start exactly as it found it (issue 9, section 3).

A container of the test's own stands in for the user's server. It gets foreign data of every kind
the backend holds, including names that only look like the harness's, and a dump of everything
on it. Then, through the real CLI: every suite of SUITES in each of MODES and a dataset run in this
process (what a run leaves on a server does not depend on the process it ran in); runs interrupted
mid-way by SIGINT and SIGTERM (each must drop what it created before it exits) and a run killed by
SIGKILL (it cannot: the ledger must name all it left) in subprocesses, where the process is the
point; and `harness down --url`. After each run but the killed one, and after `down --url`, the
dump must be the same byte for byte and nothing of the harness's may be on the server or in the
ledger. One test per server backend named with `--harness-backend` (by default the local ones;
`--harness-backend atlas` in CI's Atlas leg).
"""

from __future__ import annotations

import difflib
import json
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import pytest

from harness.backends.ledger import EXTENSION, NAMESPACE, STATE_DIR_ENV, Ledger
from harness.backends.provision import start_server
from harness.containers.runtime import RunningContainer
from tests.conftest import Main
from tests.containers.conftest import require_docker_or_skip
from tests.datasets.builders import longmemeval_records
from tests.faults.helpers import Watched, kill_while, start, write_suite

SUITES: tuple[str, ...] = ("builtin", "lifecycle:builtin", "code-tasks:builtin", "conversation:builtin")
"""The `--suite` specs run on the server, each in each of MODES: one line per suite (or kind of case)."""
DATASETS: tuple[tuple[str, ...], ...] = (("--dataset", "longmemeval-s", "-m", "bm25", "--granularity", "session"),)
"""Dataset runs (on a small file written here); bm25 alone, since the other modes need a model."""
TAKEN = "dataset_0_sessions"
"""A name of the user's own that the first haystack of a session-level dataset run is also named."""
MODES = ("bm25", "hybrid")
"""A namespace without a vector index (bm25) and one with both (hybrid): what a run creates depends
on whether it embeds (the index spec's dimensions), so vector mode creates what hybrid does. A
backend without a vector engine (valkey) reports hybrid as not run."""
INTERRUPTED_CASES = 3000
"""Enough that no run finishes before the signal (it is sent after 20 cases, and a run does some tens
a second); every case is loaded before the first runs, so more would only slow each run's start."""

Found = set[tuple[str, str]]
"""(ledger kind, name): what the harness's naming finds on a server, comparable with the ledger."""


class Foreign(Protocol):
    """A user's server: data of its own, a dump of everything, and what follows the harness's naming."""

    def seed(self) -> None: ...

    def dump(self) -> object:
        """Everything on the server a run could touch, byte for byte where the server allows it."""

    def harness_objects(self) -> Found:
        """Namespaces (and the postgres extension) as the harness names them, wherever they came from."""

    def close(self) -> None: ...


class ForeignPostgres:
    """Tables with rows, an index, a sequence, views, a function, in `public` and in schemas of the
    user's own (one named like the harness's, `ns_...`); dumped with the server's own pg_dump."""

    def __init__(self, container: RunningContainer):
        import psycopg

        self.container = container
        self.conn = psycopg.connect(container.url, autocommit=True)

    def seed(self) -> None:
        self.conn.execute(
            r"""
            CREATE TABLE public.notes (id int PRIMARY KEY, body text NOT NULL, data bytea,
                                       at timestamptz DEFAULT '2026-01-01 00:00+00');
            INSERT INTO public.notes (id, body, data) VALUES (1, 'first', '\x00ff'), (2, 'Zweite Notiz', NULL);
            CREATE INDEX notes_lower_body ON public.notes (lower(body));
            CREATE TABLE public.docs (id text PRIMARY KEY, a_user text);
            INSERT INTO public.docs VALUES ('m-1', 'u-ana');
            CREATE SEQUENCE public.tickets START 40 INCREMENT 3;
            SELECT nextval('public.tickets'), nextval('public.tickets');
            CREATE VIEW public.note_bodies AS SELECT id, upper(body) AS body FROM public.notes;
            COMMENT ON TABLE public.notes IS 'the user''s own';
            CREATE SCHEMA app;
            CREATE TABLE app.events (id bigserial PRIMARY KEY, kind text, payload jsonb, tags text[]);
            INSERT INTO app.events (kind, payload, tags)
                VALUES ('start', '{"a": [1, 2.5, null]}', '{x,y}'), ('stop', NULL, '{}');
            CREATE MATERIALIZED VIEW app.kinds AS SELECT kind, count(*) AS n FROM app.events GROUP BY kind;
            CREATE FUNCTION app.twice(x int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT x * 2';
            CREATE SCHEMA ns_not_the_harness;
            CREATE TABLE ns_not_the_harness.docs (id text PRIMARY KEY, embedding real[]);
            INSERT INTO ns_not_the_harness.docs VALUES ('looks like the harness''s', '{0.5,-1}');
            """
        )
        self.conn.execute(f"CREATE SCHEMA ns_{TAKEN}; CREATE TABLE ns_{TAKEN}.docs AS SELECT 'the user''s' AS id")

    def dump(self) -> str:
        """The whole database, schema and data, in pg_dump's stable order (the `\\restrict` key
        pg_dump draws at random per dump is left out)."""
        from harness.containers import docker_client

        password = urlsplit(self.container.url).password or ""
        client = docker_client()
        try:
            code, (out, err) = client.containers.get(self.container.name).exec_run(
                ["pg_dump", "-h", "127.0.0.1", "-U", "harness", "-d", "harness"],
                environment={"PGPASSWORD": password},
                demux=True,
            )
        finally:
            client.close()
        assert code == 0, (err or b"").decode()
        lines = out.decode().splitlines()
        return "\n".join(line for line in lines if not line.startswith(("\\restrict", "\\unrestrict")))

    def harness_objects(self) -> Found:
        rows = self.conn.execute(
            r"""
            SELECT 'namespace', substr(nspname, 4) FROM pg_namespace WHERE nspname LIKE 'ns\_%'
            UNION ALL SELECT 'extension', extname FROM pg_extension WHERE extname = 'vector'
            """
        ).fetchall()
        return {(kind, name) for kind, name in rows}

    def close(self) -> None:
        self.conn.close()


class ForeignRedis:
    """Keys of every core type (and JSON where the module is there) in two databases, with TTLs,
    some named like the harness's (`h:{...}:`); a search index of the user's own where the server
    has the Query Engine. Dumped as every key's DUMP and absolute expiry, and each foreign index's
    definition and document count."""

    def __init__(self, container: RunningContainer):
        import redis

        self.url = container.url
        self.client = redis.Redis.from_url(self.url)
        self.databases = int(self.client.config_get("databases")["databases"])
        self.search = bool(self.client.command_list(pattern="ft.create"))
        self.json = bool(self.client.command_list(pattern="json.set"))

    def _db(self, number: int) -> Any:
        """A client of database `number` (the URL's path names the database, whatever `db=` says)."""
        import redis

        return redis.Redis.from_url(urlsplit(self.url)._replace(path=f"/{number}").geturl())

    def seed(self) -> None:
        for number in (0, 1):
            c = self._db(number)
            c.set("app:greeting", b"hello \x00 world \xff")
            c.set("app:counter", 41)
            c.incr("app:counter")
            c.set("app:expiring", "v", ex=86_400)
            c.hset("app:user:1", mapping={"name": "Ada Lovelace", "role": "admin", "h:{x}:field": "1"})
            c.hset("app:user:2", mapping={"name": "Grace Hopper", "role": "user"})
            c.rpush("app:queue", "a", "b", "c")
            c.sadd("app:tags", "x", "y", *range(200))  # an intset and then a hashtable
            c.zadd("app:scores", {"ada": 1.5, "bob": 2})
            c.xadd("app:stream", {"event": "start"}, id="1-1")
            c.xadd("app:stream", {"event": "stop"}, id="2-1")
            c.xgroup_create("app:stream", "workers", id="0")
            c.pfadd("app:visitors", "a", "b")
            c.setbit("app:bits", 77, 1)
            c.set("h:{not-the-harness}:doc:1", "a key that only looks like the harness's", px=90_000_000)
            c.hset("h:{builtin}:docs", "m-1", "looks like a `harness up` namespace")
            c.sadd(f"h:{{{TAKEN}}}:docs", "the user's")
            c.hset(f"h:{{{TAKEN}}}:doc:m-1", "f:name", "the user's")
            if self.json:
                c.execute_command("JSON.SET", "app:doc", "$", '{"a": [1, 2.5, {"b": null}], "c": "d"}')
            c.close()
        if self.search:
            self.client.execute_command(
                "FT.CREATE", "app_users", "ON", "HASH", "PREFIX", 1, "app:user:",
                "SCHEMA", "name", "TEXT", "role", "TAG",
            )  # fmt: skip
            self._wait_indexed("app_users")

    def _wait_indexed(self, index: str) -> None:
        deadline = time.monotonic() + 30
        while float(self._info(index)[b"indexing"]) and time.monotonic() < deadline:  # 0, b"0" or b"0.0"
            time.sleep(0.05)

    def _info(self, index: str) -> dict[bytes, Any]:
        reply = self.client.execute_command("FT.INFO", index)  # a map under RESP3, pairs under RESP2
        return reply if isinstance(reply, dict) else dict(zip(reply[::2], reply[1::2], strict=True))

    def dump(self) -> dict[str, object]:
        keys = {}
        for number in range(self.databases):
            c = self._db(number)
            keys[number] = {k: (c.dump(k), c.pexpiretime(k)) for k in c.scan_iter(count=1000)}
            c.close()
        found: dict[str, object] = {"keys": keys}
        if self.search:
            indexes = sorted(self.client.execute_command("FT._LIST"))
            wanted = (b"index_definition", b"attributes", b"index_options", b"num_docs")
            found["indexes"] = {i: {k: v for k, v in self._info(i).items() if k in wanted} for i in indexes}
        return found

    def harness_objects(self) -> Found:
        found = set()
        for key in self.client.scan_iter(match="h:{*}:*", count=1000):
            found.add((NAMESPACE, key.decode().split("}", 1)[0].removeprefix("h:{")))
        if self.search:
            for index in self.client.execute_command("FT._LIST"):  # the harness's: h:{<namespace>}:idx:...
                if index.startswith(b"h:{"):
                    found.add((NAMESPACE, index.decode().split("}", 1)[0].removeprefix("h:{")))
        return found

    def close(self) -> None:
        self.client.close()


class ForeignAtlas:
    """Another database, and collections of the user's own in the harness's database `harness`,
    with documents of many BSON types, an index and a search index of their own. Dumped as every
    collection's raw BSON documents, options (with the collection's UUID), indexes and search
    index definitions."""

    SYSTEM = ("admin", "config", "local")
    """The server's own databases, and (by prefix `__`) mongot's catalog, which search indexes change."""

    def __init__(self, container: RunningContainer):
        from pymongo import MongoClient

        self.client: Any = MongoClient(container.url)

    def seed(self) -> None:
        import datetime

        from bson import Binary, Decimal128, Int64, ObjectId

        events = self.client["app_data"]["events"]
        events.insert_many(
            [
                {"_id": ObjectId("65f000000000000000000001"), "kind": "start", "at": datetime.datetime(2026, 1, 1)},
                {"_id": ObjectId("65f000000000000000000002"), "blob": Binary(b"\x00\xff"), "n": Int64(7)},
                {"_id": ObjectId("65f000000000000000000003"), "price": Decimal128("1.10"), "tags": ["x", {"y": None}]},
            ]
        )
        events.create_index([("kind", 1), ("at", -1)], name="kind_at")
        notes = self.client["harness"]["user_notes"]
        notes.insert_many([{"_id": "n1", "body": "the user's own note"}, {"_id": "n2", "body": "another one"}])
        notes.create_index("body", name="body_1")
        notes.create_search_index(
            {
                "name": "notes_search",
                "definition": {"mappings": {"dynamic": False, "fields": {"body": {"type": "string"}}}},
            }
        )
        self.client["harness"][TAKEN].insert_one({"_id": "looks like the harness's"})
        deadline = time.monotonic() + 180
        while not all(i.get("queryable") for i in notes.list_search_indexes()):
            assert time.monotonic() < deadline, "the foreign search index never became queryable"
            time.sleep(0.5)

    def dump(self) -> dict[str, object]:
        from bson.codec_options import CodecOptions
        from bson.raw_bson import RawBSONDocument

        raw: CodecOptions[RawBSONDocument] = CodecOptions(document_class=RawBSONDocument)
        found: dict[str, object] = {}
        databases = [d for d in self.client.list_database_names() if d not in self.SYSTEM and not d.startswith("__")]
        for database in sorted(databases):
            db = self.client[database]
            for listed in sorted(db.list_collections(), key=lambda c: c["name"]):
                name = listed["name"]
                collection = db.get_collection(name, codec_options=raw)
                found[f"{database}.{name}"] = {
                    "listed": dict(listed),
                    "documents": [d.raw for d in collection.find({}, sort=[("_id", 1)])],
                    "indexes": sorted((dict(i) for i in db[name].list_indexes()), key=lambda i: i["name"]),
                    "search": sorted(
                        ((i["name"], i.get("type"), i.get("latestDefinition")) for i in db[name].list_search_indexes()),
                        key=str,
                    ),
                }
        return found

    def harness_objects(self) -> Found:
        return {(NAMESPACE, name) for name in self.client["harness"].list_collection_names()}

    def close(self) -> None:
        self.client.close()


def foreign(backend: str, container: RunningContainer) -> Foreign:
    if backend == "postgres":
        return ForeignPostgres(container)
    if backend == "atlas":
        return ForeignAtlas(container)
    return ForeignRedis(container)


@pytest.fixture
def user_server(any_server: str) -> Iterator[tuple[RunningContainer, Foreign]]:
    """The user's server: a container of this test's own with foreign data seeded. Whichever image
    the harness would run (a local build, else the registry's: CI's legs run the official images,
    so redis there has the Query Engine and JSON); building local images here would change that."""
    from harness.containers import remove_run

    require_docker_or_skip()
    run = f"test-{uuid.uuid4().hex[:10]}"
    try:
        _, container = start_server(any_server, run)
        server = foreign(any_server, container)
        try:
            server.seed()
            yield container, server
        finally:
            server.close()
    finally:
        remove_run(run)


def changes(before: object, after: object, path: str = "") -> list[str]:
    """Where two dumps differ: the keys added, removed or changed; a text dump's diff lines."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(before.keys() | after.keys(), key=str):
            where = f"{path}/{key!r}"
            if key not in after or key not in before:
                found.append(f"{where}: {'removed' if key not in after else 'added'}")
            else:
                found += changes(before[key], after[key], where)
        return found
    if isinstance(before, str) and isinstance(after, str):
        return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)]
    return [] if before == after else [f"{path}: {before!r} -> {after!r}"[:300]]


def written(ledger: Ledger, server: Foreign, decoys: Found) -> Found | None:
    """What of the harness's is on the server, once a namespace the run recorded is there."""
    recorded = {(e.kind, e.name) for e in ledger.entries()}
    there = server.harness_objects() - decoys
    return there if {n for n in there if n[0] == NAMESPACE} & recorded else None


def wait_until_written(run: Any, ledger: Ledger, server: Foreign, decoys: Found) -> None:
    deadline = time.monotonic() + 180
    while written(ledger, server, decoys) is None:
        assert run.poll() is None, f"the run ended (rc {run.returncode}) before it could be stopped"
        assert time.monotonic() < deadline, "no namespace of the run appeared on the server within 180 s"
        time.sleep(0.02)


def test_a_url_run_leaves_the_servers_own_data_as_it_found_it(
    any_server: str, user_server: tuple[RunningContainer, Foreign], tmp_path: Path, harness_main: Main
) -> None:
    container, server = user_server
    url, backend = container.url, any_server
    state, out = tmp_path / "state", tmp_path / "reports"
    ledger = Ledger(url, state)
    extension = ["--allow-extension"] if backend == "postgres" else []
    ledgered = {STATE_DIR_ENV: str(state)}
    before, decoys = server.dump(), server.harness_objects()
    assert decoys, "the seed names some of its own data like the harness's"
    assert (EXTENSION, "vector") not in decoys, "the extension must be the run's to create"

    def unchanged(after: str) -> None:
        assert server.harness_objects() - decoys == set(), f"the harness left things {after}"
        assert ledger.entries() == [], f"ledger entries remain {after}"
        now = server.dump()
        assert now == before, f"the server's own data changed {after}:\n" + "\n".join(changes(before, now))

    def completed(done: subprocess.CompletedProcess[str]) -> None:
        """Every result came back; a quality gate may fail (exit 1): scores are not this test's concern."""
        output = done.stdout[-3000:] + done.stderr[-3000:]
        assert done.returncode in (0, 1), output
        assert "results errored" not in done.stderr, output
        assert "Traceback" not in done.stderr, output

    # (a) every suite in every mode, and dataset runs, through the CLI in this process
    modes = [arg for m in MODES for arg in ("-m", m)]
    for spec in SUITES:
        args = ("run", "-b", backend, "--url", url, "-s", spec, *modes, *extension, "--out", str(out))
        completed(harness_main(*args, cwd=tmp_path, **ledgered))
        unchanged(f"after `run -s {spec}`")

    data = tmp_path / "longmemeval.json"
    data.write_text(json.dumps(longmemeval_records()), encoding="utf-8")
    for dataset in DATASETS:
        args = ("run", "-b", backend, "--url", url, *dataset, "--file", str(data), *extension, "--out", str(out))
        completed(harness_main(*args, cwd=tmp_path, **ledgered))
        unchanged(f"after `run {' '.join(dataset)}`")

    # (b) SIGINT or SIGTERM mid-way: the run drops everything it created before it exits
    big = write_suite(tmp_path / "big", INTERRUPTED_CASES, memories=200)
    args = ("run", "-b", backend, "--url", url, "-s", str(big), "-m", "bm25", *extension, "--out", str(out))
    for sig in (signal.SIGINT, signal.SIGTERM):
        with Watched(*args, cwd=tmp_path, **ledgered) as run:
            run.wait_progress("cases", 20)
            wait_until_written(run.process, ledger, server, decoys)
            run.process.send_signal(sig)
            assert run.finish() == 128 + sig, run.stderr[-3000:]
        unchanged(f"after a run interrupted by {sig.name}")

    # (c) SIGKILL: nothing can be cleaned up, the ledger names it all
    kill_while(start(*args, cwd=tmp_path, **ledgered), lambda: written(ledger, server, decoys), within=180)
    left, entries = server.harness_objects() - decoys, ledger.leftovers()
    recorded = {(e.kind, e.name) for e in entries}
    assert left, "the killed run must have left something on the server (else this proves nothing)"
    assert left <= recorded, f"after SIGKILL, {sorted(left - recorded)} is on the server and not in the ledger"

    # (d) `harness down --url` removes exactly what the ledger names
    down = harness_main("down", "--url", url, cwd=tmp_path, **ledgered)
    assert down.returncode == 0, down.stdout + down.stderr
    assert f"removed {len(entries)} leftover(s)" in down.stdout, down.stdout
    unchanged("after SIGKILL and `down --url`")
