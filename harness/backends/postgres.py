"""PostgreSQL backend, "postgres sql-bm25": per-field BM25 computed by one SQL query, pgvector HNSW.

Postgres has no BM25 (ts_rank has no idf) and Debian packages no BM25 extension, so each namespace
(one schema) keeps its own postings and statistics, exact after every write:
    terms(term, field, id, tf, len)     postings: one row per distinct token of a field, with the
                                        field's length in tokens
    vocab(term, field, df)              n: documents whose field holds the term
    stats(field, weight, docs, tokens)  N and the length total per field, avglen = tokens / docs
and a clause scores
    weight_f * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)),   k1 = 1.2, b = 0.75
    idf = ln(1 + (N - n + 0.5) / (n + 0.5))   (Lucene and Redis BM25STD; never negative)
with N the documents with at least one token in field f (Lucene's docCount) and n those of them
holding the term, whatever their attributes: filters choose what is returned, never the statistics.
Field text arrives analysed (space-separated tokens) and is split on spaces in SQL rather than
through to_tsvector, which keeps at most 255 positions per lexeme and so would cap tf.

Vectors: a `vector(d)` column with an HNSW `vector_cosine_ops` index. HNSW filters after the scan
and returns at most `hnsw.ef_search` rows, so each query raises ef_search to cover its limit and
turns on iterative scans (pgvector 0.8) in its own transaction: selective filters cannot starve it.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlunsplit

import numpy as np

from harness.backends.base import (
    BM25_B,
    BM25_K1,
    Absent,
    AttributeType,
    BackendInfo,
    Clause,
    Eq,
    Filters,
    Hit,
    IndexDoc,
    IndexSpec,
    Present,
    Value,
    ranked,
    stored_value,
    unit,
)
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, ExtensionPolicy, UrlScheme, server_url
from harness.errors import BackendUnavailable, HarnessError
from harness.messages import masked, one_line, redacted

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.pq import TransactionStatus

LEXICAL_SCORER = (
    f"sql bm25 per field, k1={BM25_K1} b={BM25_B}, idf=ln(1+(N-n+0.5)/(n+0.5)), "
    "score = weight * idf * tf*(k1+1) / (tf + k1*(1-b+b*len/avglen))"
)
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
MIN_EF_SEARCH = 40
TIE_ROWS = 8
"""Vector rows fetched past the limit, so exact cosine ties at the cut are broken by id."""

_NAMESPACE = re.compile(r"^[A-Za-z0-9_]{1,60}$")


def _schema(namespace: str) -> str:
    """A quoted schema name; the prefix keeps namespaces away from `public` and the catalogs."""
    if not _NAMESPACE.match(namespace):
        raise ValueError(f"not a safe namespace (letters, digits, _; at most 60): {namespace!r}")
    return f'"ns_{namespace}"'


_TABLES = ("docs", "terms", "vocab", "stats")


def _drop(schema: str) -> str:
    """The namespace's own tables (their indexes go with them), then the schema, never CASCADE:
    an object of someone else's that depends on them (a view over `docs`) or sits in the schema
    makes the drop fail rather than disappear with it."""
    tables = ", ".join(f"{schema}.{table}" for table in _TABLES)
    return f"DROP TABLE IF EXISTS {tables} RESTRICT; DROP SCHEMA IF EXISTS {schema} RESTRICT"


_COLUMN_TYPES = {AttributeType.KEYWORD: "text", AttributeType.KEYWORDS: "text[]", AttributeType.BOOLEAN: "boolean"}


def _where(filters: Filters, spec: IndexSpec) -> tuple[str, dict[str, Any]]:
    """Conditions on `docs d` (attribute `x` is column `a_x`, NULL when absent; keywords are
    `text[]` tested with `&&`, which their GIN index serves). Only the filters in use appear,
    booleans as literals, so each shape prepares its own plan."""
    conditions, params = ["TRUE"], {}
    for i, condition in enumerate(filters.conditions):
        column, kind = f'd."a_{condition.attribute}"', spec.attributes[condition.attribute]
        if isinstance(condition, Present | Absent):
            conditions.append(f"{column} IS {'NOT ' if isinstance(condition, Present) else ''}NULL")
        elif isinstance(condition, Eq) and kind is AttributeType.BOOLEAN:  # check_filters: booleans take Eq only
            conditions.append(column if condition.value else f"NOT {column}")
        else:
            values = condition.accepted
            test = "{} && %(p{})s::text[]" if kind is AttributeType.KEYWORDS else "{} = ANY(%(p{})s::text[])"
            conditions.append(test.format(column, i))
            params[f"p{i}"] = values
    return " AND ".join(conditions), params


EXTENSION_LOCK = 0x68726E_7663
"""Advisory lock key taken (per transaction) to create or drop `vector`: runs take turns."""
EXTENSION_USERS = 0x68726E_7675
"""Advisory lock key every run using a `vector` the harness created holds shared for its session:
the last one to leave (the exclusive lock granted) drops it; a run never drops it under another's
queries (DROP EXTENSION waits on their tables while they wait on its locks: a deadlock)."""
HARNESS_MARK = "created by memory-retrieval-harness"
"""The comment on a `vector` extension the harness created, so that other runs share it."""


def _ensure_vector(conn: Connection[Any], *, create: bool, on_create: Callable[[int], None] | None) -> None:
    """pgvector's `vector` extension in this database, created only when `create` allows it. One a
    harness run created (marked) is shared by every run that uses it, allowed to create it or not:
    each holds `EXTENSION_USERS` shared and records it (`on_create`), so the last to leave drops it
    and none drops it under another's queries (a run without `--allow-extension` once took no
    lock: the run that created it dropped it, or failed to, under that run's tables)."""
    import psycopg

    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (EXTENSION_LOCK,))
            row = conn.execute(
                "SELECT oid, obj_description(oid, 'pg_extension') FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
            if row is not None and row[1] != HARNESS_MARK:
                return  # the server's own: not ours to drop
            if row is None:
                if not conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
                    raise BackendUnavailable(
                        "postgres: the pgvector extension 'vector' is not installed on this server"
                    )
                if not create:
                    raise BackendUnavailable(
                        "postgres: this database has no 'vector' extension (pgvector); run CREATE EXTENSION vector, "
                        "or pass --allow-extension to let the harness create it and drop it at the end"
                    )
                conn.execute("CREATE EXTENSION vector")
                conn.execute(f"COMMENT ON EXTENSION vector IS '{HARNESS_MARK}'")
                row = conn.execute("SELECT oid FROM pg_extension WHERE extname = 'vector'").fetchone()
            conn.execute("SELECT pg_advisory_lock_shared(%s)", (EXTENSION_USERS,))  # held until the session ends
            if on_create is not None and row is not None:
                on_create(int(row[0]))
    except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateObject):
        pass  # created by a session that does not take the lock: not ours to drop


def _open(url: str, extension: ExtensionPolicy, on_create: Callable[[int], None] | None) -> Connection[Any]:
    """An autocommit connection, pgvector's types registered unless `extension` is "skip"."""
    try:
        import psycopg
        from pgvector.psycopg import register_vector
    except ImportError as exc:
        raise BackendUnavailable(
            f"the postgres backend needs the 'postgres' extra ({exc.name} is missing): "
            "pip install 'memory-retrieval-harness[postgres]'"
        ) from exc
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise BackendUnavailable(f"cannot connect to postgres: {masked(one_line(exc))}") from exc
    try:
        if extension != "skip":
            _ensure_vector(conn, create=extension == "create", on_create=on_create)
            register_vector(conn)
        # Parse once, plan per call: generic plans guess how many rows a term or a filter
        # selects, and picked plans 10x slower than the custom ones on common terms.
        conn.execute("SET plan_cache_mode = force_custom_plan")
    except psycopg.Error as exc:
        conn.close()
        raise BackendUnavailable(f"postgres session setup failed: {one_line(exc)}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


class _Lent:
    """A worker thread's hold on a connection: when the thread ends, its thread-local slot and so
    this object go, and the connection goes back to the session's idle ones (`weakref.finalize`,
    given the one-element list `held`, which a reconnection changes in place)."""

    def __init__(self, conn: Connection[Any]):
        self.held = [conn]


class _Session:
    """The backend's connections, shared with its indexes: one per thread (`--concurrency`).

    The thread that connected uses the first connection, as a serial run always did; each worker
    thread of a run's crew gets one of its own (psycopg serialises one connection's commands, and
    a transaction opened by one thread would take in another's), taken from the connections that
    ended workers gave back, else opened: a run holds about as many as it has workers at once.

    The CLI's SIGINT and SIGTERM raise from a signal handler, often while psycopg waits for a
    reply. psycopg cancels the query only on KeyboardInterrupt: after any other exception the
    connection stays busy and every later command on it fails, so a run's clean-up could not drop
    what it created on a user's server. `for_cleanup` cancels such an abandoned query and
    reconnects; `close` cancels it too, so it does not go on running on the server.
    """

    def __init__(self, conn: Connection[Any], url: str):
        self.conn = conn
        self._url = url
        self._owner = threading.get_ident()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._idle: list[Connection[Any]] = []
        self._workers: list[Connection[Any]] = []
        self._closed = False

    @property
    def current(self) -> Connection[Any]:
        """This thread's connection: the first one on the thread that connected, else the worker's own."""
        if threading.get_ident() == self._owner:
            return self.conn
        lent: _Lent | None = getattr(self._local, "lent", None)
        if lent is None:
            lent = self._local.lent = _Lent(self._lend())
            weakref.finalize(lent, self._give_back, lent.held)
        return lent.held[0]

    def _lend(self) -> Connection[Any]:
        with self._lock:
            if self._closed:
                raise BackendUnavailable("postgres: the backend was closed")
            if self._idle:
                return self._idle.pop()
        conn = self._reopened()
        with self._lock:
            self._workers.append(conn)
        return conn

    def _give_back(self, held: list[Connection[Any]]) -> None:
        """A worker's connection after its thread ended: idle again, or closed if it is not idle."""
        from psycopg.pq import TransactionStatus

        (conn,) = held
        with self._lock:
            if not self._closed and _status(conn) == TransactionStatus.IDLE:
                self._idle.append(conn)
                return
            if conn in self._workers:
                self._workers.remove(conn)
        _close(conn)

    def _reopened(self) -> Connection[Any]:
        """A further connection to the server: no extension work (the first connection holds the
        run's share of it), pgvector's types registered where the database has them."""
        conn = _open(self._url, "skip", None)
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
            from pgvector.psycopg import register_vector

            register_vector(conn)
        return conn

    def for_cleanup(self) -> Connection[Any]:
        """This thread's connection if it is idle (clean-up never runs inside a transaction), else a
        new one: after an abandoned query (ACTIVE) or a broken connection (UNKNOWN)."""
        from psycopg.pq import TransactionStatus

        if threading.get_ident() == self._owner:
            return self.first_for_cleanup()
        conn = self.current
        if _status(conn) == TransactionStatus.IDLE:
            return conn
        _close(conn)
        fresh = self._reopened()
        with self._lock:
            self._workers = [fresh if c is conn else c for c in self._workers]
        self._local.lent.held[0] = fresh
        return fresh

    def first_for_cleanup(self) -> Connection[Any]:
        """The first connection, as `for_cleanup` gives it: the backend's own work (its namespaces
        by name, the extension it shares) goes through the connection that holds its share."""
        from psycopg.pq import TransactionStatus

        if _status(self.conn) != TransactionStatus.IDLE:
            _close(self.conn)
            self.conn = self._reopened()
        return self.conn

    def close(self) -> None:
        with self._lock:
            self._closed = True
            others, self._workers, self._idle = self._workers, [], []
        for conn in (self.conn, *others):
            _close(conn)


def _status(conn: Connection[Any]) -> TransactionStatus:
    from psycopg.pq import TransactionStatus

    return TransactionStatus.UNKNOWN if conn.closed else conn.info.transaction_status


def _close(conn: Connection[Any]) -> None:
    """Close `conn`, its running query cancelled first so that it does not go on on the server."""
    import psycopg
    from psycopg.pq import TransactionStatus

    if _status(conn) == TransactionStatus.ACTIVE:
        try:
            conn.cancel()
        except psycopg.Error:
            pass  # the server is gone: nothing runs there any more
    conn.close()


class PostgresIndex:
    def __init__(self, session: _Session, namespace: str, spec: IndexSpec):
        self._session = session
        self._s = _schema(namespace)
        self._spec = spec
        self._create()

    @property
    def _conn(self) -> Connection[Any]:
        return self._session.current

    def _create(self) -> None:
        s, dims = self._s, self._spec.dimensions
        embedding = f", embedding vector({int(dims)})" if dims else ""
        attributes = "".join(f', "a_{a}" {_COLUMN_TYPES[kind]}' for a, kind in self._spec.attributes.items())
        gin = "".join(
            f'CREATE INDEX ON {s}.docs USING gin ("a_{a}");'
            for a, kind in self._spec.attributes.items()
            if kind is AttributeType.KEYWORDS
        )
        hnsw = (
            f"CREATE INDEX ON {s}.docs USING hnsw (embedding vector_cosine_ops) "
            f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION});"
            if dims
            else ""
        )
        self._conn.execute(
            f"""
            {_drop(s)};
            CREATE SCHEMA {s};
            CREATE TABLE {s}.docs (id text PRIMARY KEY{attributes}{embedding});
            {gin}
            CREATE TABLE {s}.terms (term text, field text, id text, tf integer NOT NULL, len integer NOT NULL,
                                    PRIMARY KEY (term, field, id));
            CREATE INDEX ON {s}.terms (id);
            CREATE TABLE {s}.vocab (term text, field text, df integer NOT NULL, PRIMARY KEY (term, field));
            CREATE TABLE {s}.stats (field text PRIMARY KEY, weight float8 NOT NULL,
                                    docs bigint NOT NULL DEFAULT 0, tokens bigint NOT NULL DEFAULT 0);
            {hnsw}
            """,
            prepare=False,
        )
        self._conn.execute(
            f"INSERT INTO {s}.stats (field, weight) SELECT * FROM unnest(%s::text[], %s::float8[])",
            (list(self._spec.fields), list(self._spec.fields.values())),
        )

    # -- writes ---------------------------------------------------------------------------------

    def load(self, docs: Sequence[IndexDoc]) -> None:
        """Bulk write, then ANALYZE: plans right after a load must not depend on autovacuum timing."""
        self._write(docs)
        s = self._s
        self._conn.execute(f"ANALYZE {s}.docs, {s}.terms, {s}.vocab, {s}.stats")

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        self._write(docs)

    def _write(self, docs: Sequence[IndexDoc]) -> None:
        """Delete then insert in one transaction; `vocab` and `stats` move by what left and arrived."""
        s = self._s
        ids = [d.id for d in docs]
        texts = [
            (d.id, f, body) for d in docs for f in self._spec.fields if (body := " ".join(d.fields.get(f, "").split()))
        ]
        for doc in docs:
            self._spec.check_doc(doc)
        columns = ", ".join(
            ["id", *(f'"a_{a}"' for a in self._spec.attributes), *(["embedding"] if self._spec.dimensions else [])]
        )
        with self._conn.transaction(), self._conn.cursor() as cur:
            cur.execute(
                f"""
                WITH gone_docs AS (DELETE FROM {s}.docs WHERE id = ANY(%(ids)s::text[])),
                     gone AS (DELETE FROM {s}.terms WHERE id = ANY(%(ids)s::text[]) RETURNING term, field, id, tf),
                     vocab_down AS (
                         UPDATE {s}.vocab v SET df = v.df - g.n
                         FROM (SELECT term, field, count(*) AS n FROM gone GROUP BY term, field) g
                         WHERE v.term = g.term AND v.field = g.field)
                UPDATE {s}.stats st SET docs = st.docs - g.n, tokens = st.tokens - g.total
                FROM (SELECT field, count(DISTINCT id) AS n, sum(tf) AS total FROM gone GROUP BY field) g
                WHERE st.field = g.field
                """,
                {"ids": ids},
            )
            with cur.copy(f"COPY {s}.docs ({columns}) FROM STDIN") as copy:
                for doc in docs:
                    copy.write_row(self._row(doc))
            cur.execute(
                f"""
                WITH added AS (
                         INSERT INTO {s}.terms (term, field, id, tf, len)
                         SELECT term, field, id, count(*), sum(count(*)) OVER (PARTITION BY field, id)
                         FROM unnest(%s::text[], %s::text[], %s::text[]) AS src(id, field, body),
                              string_to_table(body, ' ') AS term
                         GROUP BY term, field, id
                         RETURNING term, field, id, tf),
                     vocab_up AS (
                         INSERT INTO {s}.vocab (term, field, df)
                         SELECT term, field, count(*) FROM added GROUP BY term, field
                         ON CONFLICT (term, field) DO UPDATE SET df = vocab.df + excluded.df)
                UPDATE {s}.stats st SET docs = st.docs + a.n, tokens = st.tokens + a.total
                FROM (SELECT field, count(DISTINCT id) AS n, sum(tf) AS total FROM added GROUP BY field) a
                WHERE st.field = a.field
                """,
                [[row[i] for row in texts] for i in range(3)],
            )

    def _row(self, doc: IndexDoc) -> tuple[object, ...]:
        values = (doc.attributes.get(a) for a in self._spec.attributes)
        row = (doc.id, *(sorted(v) if isinstance(v, frozenset) else v for v in values))
        if not self._spec.dimensions:
            return row
        if doc.vector is None:
            raise ValueError(f"document {doc.id!r} has no vector but the index has {self._spec.dimensions} dimensions")
        return (*row, unit(doc.vector))

    def wait_ready(self, expected: int, timeout: float) -> None:  # noqa: ARG002 - the Backend protocol's signature; writes are synchronous, nothing to wait for
        """Writes commit synchronously (CREATE INDEX included), so a count check is enough."""
        (count,) = self._conn.execute(f"SELECT count(*) FROM {self._s}.docs").fetchone() or (0,)
        if count != expected:
            raise BackendUnavailable(f"postgres index {self._s}: {count} documents, expected {expected}")

    # -- reads ----------------------------------------------------------------------------------

    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        names = list(self._spec.attributes)
        columns = "".join(f', d."a_{a}"' for a in names)
        rows = self._conn.execute(
            f"SELECT d.id{columns} FROM {self._s}.docs d WHERE d.id = ANY(%s::text[])", (list(dict.fromkeys(ids)),)
        ).fetchall()
        return {
            doc_id: {
                a: stored_value(self._spec.attributes[a], v)
                for a, v in zip(names, values, strict=True)
                if v is not None and v != []
            }
            for doc_id, *values in rows
        }

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        """One query over the postings of the terms; n, N and avglen come from `vocab` and `stats`."""
        self._spec.check_filters(filters)
        if not terms or limit <= 0:
            return []
        s, (where, params) = self._s, _where(filters, self._spec)
        k1, b, half = f"{BM25_K1!r}::float8", f"{BM25_B!r}::float8", "0.5::float8"
        rows = self._conn.execute(
            f"""
            WITH clauses AS (
                SELECT t.id, t.field, t.term,
                       st.weight * ln(1 + (st.docs - v.df + {half}) / (v.df + {half}))
                       * t.tf * ({k1} + 1) / (t.tf + {k1} * (1 - {b} + {b} * t.len / (st.tokens::float8 / st.docs)))
                       AS score
                FROM {s}.terms t
                JOIN {s}.vocab v ON v.term = t.term AND v.field = t.field
                JOIN {s}.stats st ON st.field = t.field
                JOIN {s}.docs d ON d.id = t.id
                WHERE t.term = ANY(%(terms)s::text[]) AND {where}
            )
            SELECT id, array_agg(field ORDER BY field, term), array_agg(term ORDER BY field, term),
                   array_agg(score ORDER BY field, term)
            FROM clauses GROUP BY id
            ORDER BY round(sum(score ORDER BY field, term)::numeric, 9) DESC, id
            LIMIT %(limit)s
            """,
            {**params, "terms": list(terms), "limit": limit},
        ).fetchall()
        hits = []
        for doc_id, fields, words, scores in rows:
            clauses = tuple(Clause(f, t, v) for f, t, v in zip(fields, words, scores, strict=True))
            hits.append(Hit(doc_id, sum(c.score for c in clauses), clauses))
        return ranked(hits, limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        """Nearest by `<=>` through HNSW; score = 1 - cosine distance = cosine."""
        if not self._spec.dimensions:
            raise BackendUnavailable(f"postgres index {self._s} was created without vectors")
        self._spec.check_filters(filters)
        if limit <= 0:
            return []
        where, params = _where(filters, self._spec)
        fetch = limit + TIE_ROWS
        with self._conn.pipeline(), self._conn.transaction():
            self._conn.execute(
                "SELECT set_config('hnsw.ef_search', %s, true), set_config('hnsw.iterative_scan', 'strict_order', true)",
                (str(max(fetch, MIN_EF_SEARCH)),),
            )
            cur = self._conn.execute(
                f"""
                SELECT d.id, 1 - (d.embedding <=> %(query)s) FROM {self._s}.docs d
                WHERE {where} ORDER BY d.embedding <=> %(query)s LIMIT %(limit)s
                """,
                {**params, "query": unit(query), "limit": fetch},
            )
        hits = [Hit(doc_id, score, (Clause("vector", "cosine", score),)) for doc_id, score in cur.fetchall()]
        return ranked(hits, limit)

    def drop(self) -> None:
        self._session.for_cleanup().execute(_drop(self._s))


class PostgresBackend:
    """One autocommit connection; each namespace is a schema of its own."""

    name = "postgres"

    def __init__(self, session: _Session):
        self._session = session

    @property
    def _conn(self) -> Connection[Any]:
        return self._session.conn

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        extension: ExtensionPolicy = "create",
        on_create: Callable[[int], None] | None = None,
    ) -> PostgresBackend:
        """Open `url` and register pgvector's types on the connection.

        `extension`: "create" pgvector's `vector` extension when the database lacks it (the
        harness's own servers, or a user's who allowed it; `on_create` gets its oid inside the
        creating transaction, so a record of it commits or rolls back with it), "require" it
        (a user's server), or "skip" it (clean-up, which needs no vectors).
        """
        return cls(_Session(_open(url, extension, on_create), url))

    def drop_namespace(self, namespace: str) -> None:
        """Remove a namespace by name, e.g. one a killed run left behind."""
        self._session.first_for_cleanup().execute(_drop(_schema(namespace)))

    def drop_extension(self, oid: int) -> bool:
        """Drop the `vector` extension if it is still the one created with `oid`, no other run
        shares it (`EXTENSION_USERS`) and nothing uses it any more (RESTRICT). True when dropped,
        gone, or left to the runs that share it; False when something else still uses it."""
        import psycopg

        conn = self._session.first_for_cleanup()
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (EXTENSION_LOCK,))
                conn.execute("SELECT pg_advisory_unlock_shared(%s)", (EXTENSION_USERS,))
                row = conn.execute("SELECT oid FROM pg_extension WHERE extname = 'vector'").fetchone()
                if row is None or int(row[0]) != oid:
                    return True  # gone already, or replaced by one the harness did not create
                alone = conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (EXTENSION_USERS,)).fetchone()
                if not (alone and alone[0]):
                    return True  # another run shares it: the last one to leave drops it
                conn.execute("DROP EXTENSION vector RESTRICT")
        except psycopg.errors.DependentObjectsStillExist:
            return False
        return True

    def info(self) -> BackendInfo:
        (version,) = self._conn.execute("SHOW server_version").fetchone() or ("?",)
        (pgvector,) = self._conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone() or (
            "?",
        )
        return BackendInfo(
            backend=self.name,
            engine="postgres sql-bm25 + pgvector hnsw",
            server_version=f"PostgreSQL {version}, pgvector {pgvector}",
            lexical_scorer=LEXICAL_SCORER,
            vector_engine=(
                f"pgvector hnsw vector_cosine_ops (m={HNSW_M}, ef_construction={HNSW_EF_CONSTRUCTION}), "
                f"ef_search=max(limit+{TIE_ROWS}, {MIN_EF_SEARCH}), iterative_scan=strict_order"
            ),
        )

    def create_index(self, namespace: str, spec: IndexSpec) -> PostgresIndex:
        return PostgresIndex(self._session, namespace, spec)

    def close(self) -> None:
        self._session.close()


def _connect(url: str | None, options: ConnectOptions) -> PostgresBackend:
    return PostgresBackend.connect(server_url(url), extension=options.extension, on_create=options.on_create)


URL_SCHEME = UrlScheme("postgresql", 5432)


def conninfo_server(conninfo: str) -> str:
    """`postgresql://HOST:PORT/DBNAME` of a libpq connection string (libpq's defaults where absent),
    parsed by psycopg; a bad one is a one-line error, its secrets masked."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        params = conninfo_to_dict(conninfo)
    except Exception as exc:  # noqa: BLE001 - psycopg says what is wrong with the string
        raise HarnessError(f"--url: not a PostgreSQL connection string: {masked(str(exc))}") from None
    host = str(params.get("host") or params.get("hostaddr") or "localhost").lower()
    port = str(params.get("port") or URL_SCHEME.port)
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise HarnessError(f"--url {redacted(conninfo)!r}: port {port!r} is not a port number")
    netloc = f"[{host}]" if ":" in host else host
    database = str(params.get("dbname") or params.get("user") or "")
    path = f"/{database}" if database else URL_SCHEME.path
    return urlunsplit((URL_SCHEME.canonical, f"{netloc}:{port}", path, "", ""))


DESCRIPTOR = BackendDescriptor(
    "postgres",
    _connect,
    server="postgres",
    sample_query="""psql '{url}' -c 'SELECT id, a_user, a_kind FROM ns_builtin.docs LIMIT 5'""",
    url_schemes={"postgresql": URL_SCHEME, "postgres": URL_SCHEME},
    conninfo=conninfo_server,
)
