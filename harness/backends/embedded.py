"""Embedded default: SQLite FTS5 `bm25()` for lexical, NumPy exact cosine for vectors.

One FTS5 table per searchable field, because FTS5's bm25() normalises by the length of the whole
row: a table per field gives true per-field BM25, so (field, term) clauses add up to the score.
FTS5 scores with idf = ln((N - n + 0.5) / (n + 0.5)) (floored at 1e-6), k1 = 1.2, b = 0.75.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from harness.backends.base import BackendInfo, Clause, Filters, Hit, IndexDoc, IndexSpec, ranked, unit
from harness.errors import BackendUnavailable

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _identifier(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not a safe SQL identifier: {name!r}")
    return name


class EmbeddedIndex:
    def __init__(self, db: sqlite3.Connection, namespace: str, spec: IndexSpec):
        self._db = db
        self._ns = _identifier(namespace)
        self._spec = spec
        self._fields = {f: _identifier(f"{self._ns}_f_{f}") for f in spec.fields}
        self._rows: dict[str, int] = {}
        self._ids: list[str] = []
        self._vectors = np.zeros((0, spec.dimensions or 0), dtype=np.float64)
        self._create()

    def _create(self) -> None:
        ns = self._ns
        self._db.executescript(
            f"""
            DROP TABLE IF EXISTS {ns}_docs;
            DROP TABLE IF EXISTS {ns}_scopes;
            CREATE TABLE {ns}_docs (row INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL,
                                    user TEXT NOT NULL, kind TEXT NOT NULL, live INTEGER NOT NULL);
            CREATE TABLE {ns}_scopes (row INTEGER NOT NULL, scope TEXT NOT NULL);
            CREATE INDEX {ns}_scopes_row ON {ns}_scopes (row, scope);
            """
        )
        for table in self._fields.values():
            self._db.execute(f"DROP TABLE IF EXISTS {table}")
            self._db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize='unicode61')")

    def load(self, docs: Sequence[IndexDoc]) -> None:
        for doc in docs:
            self._write(doc)
        self._db.commit()

    def upsert(self, doc: IndexDoc) -> None:
        self._write(doc)
        self._db.commit()

    def _write(self, doc: IndexDoc) -> None:
        ns = self._ns
        row = self._rows.get(doc.id)
        if row is None:
            row = len(self._rows)
            self._rows[doc.id] = row
            self._ids.append(doc.id)
        else:
            self._db.execute(f"DELETE FROM {ns}_docs WHERE row = ?", (row,))
            self._db.execute(f"DELETE FROM {ns}_scopes WHERE row = ?", (row,))
            for table in self._fields.values():
                self._db.execute(f"DELETE FROM {table} WHERE rowid = ?", (row,))
        self._db.execute(
            f"INSERT INTO {ns}_docs VALUES (?, ?, ?, ?, ?)", (row, doc.id, doc.user, doc.kind, int(doc.live))
        )
        self._db.executemany(f"INSERT INTO {ns}_scopes VALUES (?, ?)", [(row, s) for s in doc.scopes])
        for name, table in self._fields.items():
            if text := doc.fields.get(name, ""):  # an empty field is absent: it must not count in N or avgdl
                self._db.execute(f"INSERT INTO {table} (rowid, body) VALUES (?, ?)", (row, text))
        if self._spec.dimensions:
            self._store_vector(row, doc)

    def _store_vector(self, row: int, doc: IndexDoc) -> None:
        if doc.vector is None:
            raise ValueError(f"document {doc.id!r} has no vector but the index has {self._spec.dimensions} dimensions")
        if row == len(self._vectors):
            grown = np.zeros((max(16, 2 * row), self._vectors.shape[1]), dtype=np.float64)
            grown[:row] = self._vectors[:row]
            self._vectors = grown
        self._vectors[row] = unit(doc.vector)

    def wait_ready(self, expected: int, timeout: float) -> None:
        (count,) = self._db.execute(f"SELECT count(*) FROM {self._ns}_docs").fetchone()
        if count != expected:
            raise BackendUnavailable(f"embedded index {self._ns}: {count} documents, expected {expected}")

    def _where(self, filters: Filters) -> tuple[str, list[object]]:
        clauses, params = ["1"], []
        if filters.user is not None:
            clauses.append("d.user = ?")
            params.append(filters.user)
        if filters.live_only:
            clauses.append("d.live = 1")
        if filters.kinds is not None:
            clauses.append(f"d.kind IN ({','.join('?' * len(filters.kinds))})")
            params.extend(sorted(filters.kinds))
        if filters.scopes is not None:
            marks = ",".join("?" * len(filters.scopes))
            clauses.append(f"EXISTS (SELECT 1 FROM {self._ns}_scopes s WHERE s.row = d.row AND s.scope IN ({marks}))")
            params.extend(sorted(filters.scopes))
        return " AND ".join(clauses), params

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        where, params = self._where(filters)
        clauses: dict[str, list[Clause]] = defaultdict(list)
        for name, table in self._fields.items():
            weight = self._spec.fields[name]
            sql = (
                f"SELECT d.id, bm25({table}) FROM {table} JOIN {self._ns}_docs d ON d.row = {table}.rowid "
                f"WHERE {table} MATCH ? AND {where}"
            )
            for term in dict.fromkeys(terms):
                phrase = '"' + term.replace('"', '""') + '"'
                for doc_id, score in self._db.execute(sql, (phrase, *params)):
                    clauses[doc_id].append(Clause(name, term, -score * weight))
        hits = [Hit(doc_id, sum(c.score for c in cs), tuple(cs)) for doc_id, cs in clauses.items()]
        return ranked(hits, limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        if not self._spec.dimensions:
            raise BackendUnavailable(f"embedded index {self._ns} was created without vectors")
        if filters.unrestricted:  # every row: no need to ask SQLite which ones
            matrix, ids = self._vectors[: len(self._ids)], self._ids
        else:
            where, params = self._where(filters)
            rows = self._db.execute(f"SELECT d.row, d.id FROM {self._ns}_docs d WHERE {where}", params).fetchall()
            matrix = self._vectors[np.fromiter((r for r, _ in rows), dtype=np.int64, count=len(rows))]
            ids = [i for _, i in rows]
        if not ids:
            return []
        # Float64 row-by-row sums (einsum's own loop), not a BLAS product: BLAS rounding depends on
        # where a row sits in memory, which would make scores (and ties) depend on load order.
        sims = np.einsum("ij,j->i", matrix, unit(query).astype(np.float64))
        top = np.argsort(-sims, kind="stable")[: limit + 32] if len(sims) > limit + 32 else range(len(sims))
        hits = [Hit(ids[i], float(sims[i]), (Clause("vector", "cosine", float(sims[i])),)) for i in top]
        return ranked(hits, limit)

    def drop(self) -> None:
        for table in self._fields.values():
            self._db.execute(f"DROP TABLE IF EXISTS {table}")
        self._db.executescript(f"DROP TABLE IF EXISTS {self._ns}_docs; DROP TABLE IF EXISTS {self._ns}_scopes;")
        self._rows.clear()
        self._ids.clear()


class EmbeddedBackend:
    """In-process, no services: the default and the reference the other backends are held to."""

    name = "embedded"

    def __init__(self, path: str = ":memory:"):
        self._db = sqlite3.connect(path, check_same_thread=False)

    def info(self) -> BackendInfo:
        return BackendInfo(
            backend=self.name,
            engine="sqlite fts5 + numpy",
            server_version=f"sqlite {sqlite3.sqlite_version}, numpy {np.__version__}",
            lexical_scorer="fts5 bm25() per field, k1=1.2 b=0.75, idf=ln((N-n+0.5)/(n+0.5))",
            vector_engine="numpy exact cosine",
        )

    def create_index(self, namespace: str, spec: IndexSpec) -> EmbeddedIndex:
        return EmbeddedIndex(self._db, namespace, spec)

    def close(self) -> None:
        self._db.close()
