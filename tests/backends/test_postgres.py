"""The postgres backend against the protocol contract (tests/backends/contract.py), plus what an
ANN engine can get wrong and the exact engine cannot: filtered HNSW scans starving, and the whole
pipeline agreeing with the embedded reference on the built-in suite."""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from harness.backends.base import AnyOf, Eq, Filters, unit
from harness.backends.embedded import EmbeddedBackend
from harness.backends.postgres import PostgresBackend
from harness.errors import BackendUnavailable
from harness.evaluation.embedders import suite_embedder
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.runner import execute
from harness.pipeline import Mode
from harness.suites import load_suite
from tests.backends import contract


@pytest.fixture(scope="module")
def backend(server_url) -> Iterator[PostgresBackend]:
    postgres = PostgresBackend.connect(server_url("postgres"))
    yield postgres
    postgres.close()


def sql_bm25(tf: int, df: int, n_docs: int, length: int, avg_length: float) -> float:
    """The module's documented scorer: k1 = 1.2, b = 0.75, idf = ln(1 + (N-n+0.5)/(n+0.5))."""
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg_length))


def test_term_frequency_is_not_capped(backend: PostgresBackend) -> None:
    """to_tsvector keeps 255 positions per lexeme; the space split counts every occurrence."""
    docs = [contract.doc("long", "kafka " * 300, ""), contract.doc("short", "kafka", "")]
    index = backend.create_index("tf", contract.spec())
    index.load(docs)
    (hit, _) = index.lexical(["kafka"], Filters(), 10)
    assert hit.id == "long"
    assert math.isclose(hit.score, sql_bm25(300, 2, 2, 300, 301 / 2), rel_tol=1e-9)
    index.drop()


def test_selective_filter_does_not_starve_hnsw(backend: PostgresBackend) -> None:
    """Filters the planner thinks loose (user and scope each admit half, together 5 of 2000) make
    it scan HNSW, which filters after ef_search = 40 candidates: plain SQL finds none of the 5."""
    rng = np.random.default_rng(7)
    rare = {1, 3, 5, 7, 9}
    docs = [
        contract.doc(
            f"d{i:04}",
            "x",
            "",
            owner=f"u{i % 2}",
            tags=("a",) if i % 2 == 0 or i in rare else ("b",),
            vector=rng.normal(size=8),
        )
        for i in range(2000)
    ]
    query = rng.normal(size=8).astype(np.float32)
    filters = Filters(Eq("owner", "u1"), AnyOf("tags", frozenset({"a"})))
    index = backend.create_index("starve", contract.spec(8))
    index.load(docs)
    plain = backend._conn.execute(
        'SELECT id FROM "ns_starve".docs WHERE a_owner = %s AND a_tags && %s::text[] ORDER BY embedding <=> %s LIMIT 5',
        ("u1", ["a"], query),
    ).fetchall()
    assert len(plain) < 5, "precondition: the planner no longer scans HNSW here, so this test proves nothing"
    cosine = {d.id: float(unit(d.vector) @ unit(query)) for d in docs if filters.admits(d)}
    hits = index.vector(query, filters, 5)
    assert [h.id for h in hits] == sorted(cosine, key=lambda i: -cosine[i])
    assert np.allclose([h.score for h in hits], sorted(cosine.values(), reverse=True), atol=1e-5)
    index.drop()


def test_drop_removes_the_schema(backend: PostgresBackend) -> None:
    index = backend.create_index("t", contract.spec(3))
    index.load(contract.CORPUS)
    index.drop()
    assert backend._conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'ns_t'").fetchone() == (0,)


class Abandoned(BaseException):
    """What the CLI's SIGINT/SIGTERM handler raises (`harness.errors.Interrupted`): not a KeyboardInterrupt."""


def _abandon_a_query(backend: PostgresBackend) -> None:
    """A query left mid-way by a signal handler's exception, as Ctrl-C leaves one in a run."""

    def interrupt(_signum: int, _frame: object) -> None:
        raise Abandoned

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Abandoned):
            backend._conn.execute("SELECT pg_sleep(30)")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_clean_up_works_after_a_signal_abandoned_a_query(server_url) -> None:
    """psycopg cancels a query only on KeyboardInterrupt: on the CLI's own exception the connection
    stays busy, and dropping the run's namespaces on it failed, leaving them on the user's server."""
    url = server_url("postgres")
    backend = PostgresBackend.connect(url)
    watcher = PostgresBackend.connect(url)
    try:
        index = backend.create_index("abandoned", contract.spec(3))
        index.load(contract.CORPUS)
        _abandon_a_query(backend)
        index.drop()
        gone = "SELECT count(*) FROM pg_namespace WHERE nspname = 'ns_abandoned'"
        assert watcher._conn.execute(gone).fetchone() == (0,)
        sleeping = "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)' AND state = 'active'"
        assert watcher._conn.execute(sleeping).fetchone() == (0,), "the abandoned query must be cancelled"
        backend.drop_namespace("abandoned")  # and the backend goes on serving clean-up
    finally:
        backend.close()
        watcher.close()


def test_drop_never_takes_someone_elses_objects_with_it(backend: PostgresBackend) -> None:
    """CASCADE would drop a view of the user's over the namespace's tables too; the drop must
    fail instead (the namespace stays in the `--url` ledger), and succeed once the view is gone."""
    import psycopg

    index = backend.create_index("watched", contract.spec())
    index.load(contract.CORPUS)
    backend._conn.execute('CREATE VIEW public.watching AS SELECT id FROM "ns_watched".docs')
    try:
        with pytest.raises(psycopg.errors.DependentObjectsStillExist):
            index.drop()
        with pytest.raises(psycopg.errors.DependentObjectsStillExist):
            backend.drop_namespace("watched")
        assert backend._conn.execute("SELECT count(*) FROM public.watching").fetchone() == (len(contract.CORPUS),)
    finally:
        backend._conn.execute("DROP VIEW public.watching")
    index.drop()
    assert backend._conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'ns_watched'").fetchone() == (0,)


def test_info_names_engine_versions_and_scorer(backend: PostgresBackend) -> None:
    info = backend.info()
    assert info.backend == "postgres"
    assert info.engine == "postgres sql-bm25 + pgvector hnsw"
    assert info.server_version.startswith("PostgreSQL ")
    assert ", pgvector " in info.server_version
    assert "k1=1.2 b=0.75" in info.lexical_scorer
    assert "ln(1+(N-n+0.5)/(n+0.5))" in info.lexical_scorer


def test_builtin_suite_bm25_passes_like_embedded(backend: PostgresBackend) -> None:
    plan = Plan([load_suite("builtin")], [Mode.BM25])
    got = execute(plan, backend, None)
    reference = execute(plan, EmbeddedBackend(), None)
    assert [r.error for r in got if r.error] == []
    assert [(r.item_id, r.passed) for r in got] == [(r.item_id, r.passed) for r in reference]
    assert all(r.passed for r in got), [r.item_id for r in got if not r.passed]


def test_builtin_suite_vector_retrieves_like_embedded(backend: PostgresBackend) -> None:
    """Both engines are exact at this size, so every case retrieves the same memories in order."""
    plan = Plan([load_suite("builtin")], [Mode.VECTOR])
    embedder = suite_embedder("all-MiniLM-L6-v2")
    got = execute(plan, backend, embedder)
    reference = execute(plan, EmbeddedBackend(), embedder)
    assert [r.error for r in got if r.error] == []
    assert [_ranking(r) for r in got] == [_ranking(r) for r in reference]


def _ranking(result: CaseResult) -> tuple[str, list[str], bool]:
    return result.item_id, [r["id"] for r in result.retrieved["relevant"]], result.passed


def test_connect_failure_is_one_line() -> None:
    with pytest.raises(BackendUnavailable, match="cannot connect to postgres") as caught:
        PostgresBackend.connect("postgresql://nobody:wrong@127.0.0.1:1/none?connect_timeout=2")
    assert "\n" not in str(caught.value)


def test_each_worker_thread_has_a_connection_of_its_own(backend: PostgresBackend) -> None:
    """`--concurrency`: the thread that connected keeps the first connection; each worker thread
    gets one of its own (a transaction of one cannot take in another's statements), and the
    connections of workers that ended are lent to the next ones rather than opened again."""
    session = backend._session  # a private handle: which connection each thread gets
    seen: list[object] = []
    together = threading.Barrier(3)

    def work() -> None:
        seen.append(session.current)

    def work_together() -> None:
        work()
        together.wait(timeout=10)  # all three hold theirs at once

    first = [threading.Thread(target=work_together) for _ in range(3)]
    for thread in first:
        thread.start()
    for thread in first:
        thread.join()
    assert len({id(conn) for conn in seen}) == 3
    assert session.current is session.conn not in seen
    later = threading.Thread(target=work)
    later.start()
    later.join()
    assert any(seen[-1] is conn for conn in seen[:3])
