"""Embedded default: BM25 over SQLite FTS5 postings, NumPy exact cosine for vectors.

The same BM25 as every other engine (the contract in `base.py`; formula as in `postgres.py`):
    weight_f * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen)),   k1 = 1.2, b = 0.75
    idf = ln(1 + (N - n + 0.5) / (n + 0.5))
FTS5's own `bm25()` is not used: its idf is ln((N - n + 0.5) / (n + 0.5)) (floored), and it
normalises by the whole row. One FTS5 table per field holds the postings, and its `fts5vocab`
instance table gives each admitted (term, document) its tf in one query, its `row` table each
term's n. N and the field lengths are kept in memory per field, over every document (filters
never change them), and moved by each write, so they are exact on the next query. No Python
object is made per token on a write: a field already in the analyzer's form (single spaces) is
stored as given and its length counted from its spaces.

Analysis happens once, in `harness.text`, for every engine: field text arrives as space-separated
tokens. FTS5 is given the `ascii` tokenizer, which splits on ASCII non-alphanumerics only (here:
the spaces) and keeps every other character as written, so `café` and `cafe` stay two terms as
they do on the servers (`unicode61` would fold diacritics and re-split with its own tables).

Each namespace is an in-memory database of its own, on its own connection (`--concurrency`):
namespaces worked on by different threads share nothing, and SQLite runs their statements at
once (it releases the GIL while it works); a lock per namespace serialises the threads that use
one namespace together (a belief suite's static cases read its one shared namespace). Dropping a
namespace closes its database, which frees its memory at once.
"""

from __future__ import annotations

import heapq
import json
import math
import re
import sqlite3
import threading
import weakref
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Concatenate, ParamSpec, TypeVar

import numpy as np

from harness.backends.base import (
    BM25_B,
    BM25_K1,
    Absent,
    AttributeType,
    BackendInfo,
    Clause,
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
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, ContractNotes
from harness.errors import BackendUnavailable
from harness.metrics.evaluate import rank_key


def lexical_scorer(b: float = BM25_B) -> str:
    return (
        f"bm25 per field over fts5 postings, k1={BM25_K1} b={b}, idf=ln(1+(N-n+0.5)/(n+0.5)), "
        "score = weight * idf * tf*(k1+1) / (tf + k1*(1-b+b*len/avglen))"
    )


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _identifier(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not a safe SQL identifier: {name!r}")
    return name


class _FieldStats:
    """N (documents with a token in the field), their token total and each one's length, kept
    exact on every write; n (documents holding a term) is FTS5's own count, read per query."""

    def __init__(self) -> None:
        self.lengths: dict[int, int] = {}
        self.tokens = 0

    def add(self, row: int, length: int) -> None:
        if length:
            self.lengths[row] = length
            self.tokens += length

    def remove(self, row: int) -> None:
        self.tokens -= self.lengths.pop(row, 0)

    @property
    def avglen(self) -> float:
        return self.tokens / len(self.lengths)


def _terms(text: str) -> tuple[str, int]:
    """A field's text as FTS5 stores it (tokens joined by single spaces) and its token count;
    the analyzer's output already is that form, so only other text is split and joined."""
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text, text.count(" ") + 1 if text else 0
    tokens = text.split()
    return " ".join(tokens), len(tokens)


P = ParamSpec("P")
T = TypeVar("T")


def _locked(method: Callable[Concatenate[EmbeddedIndex, P], T]) -> Callable[Concatenate[EmbeddedIndex, P], T]:
    """The method under its namespace's lock: one thread at a time on a namespace's connection."""

    def held(index: EmbeddedIndex, /, *args: P.args, **kwargs: P.kwargs) -> T:
        with index._lock:
            return method(index, *args, **kwargs)

    held.__doc__ = method.__doc__
    return held


class EmbeddedIndex:
    def __init__(self, namespace: str, spec: IndexSpec, bm25_b: float = BM25_B):
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._lock = threading.Lock()
        self._b = bm25_b
        self._ns = _identifier(namespace)
        self._spec = spec
        self._fields = {f: _identifier(f"{self._ns}_f_{f}") for f in spec.fields}
        self._multi = {
            a: _identifier(f"{self._ns}_a_{a}") for a, kind in spec.attributes.items() if kind is AttributeType.KEYWORDS
        }
        self._single = [a for a in spec.attributes if a not in self._multi]
        self._stats = {f: _FieldStats() for f in spec.fields}
        self._rows: dict[str, int] = {}
        self._ids: list[str] = []
        self._vectors = np.zeros((0, spec.dimensions or 0), dtype=np.float64)
        self._create()

    def _create(self) -> None:
        """Docs with a nullable column per single-valued attribute (`a_<name>`, booleans as 0/1);
        a (row, value) table per keywords attribute, indexed for the EXISTS the filters use."""
        ns = self._ns
        columns = "".join(
            f", a_{a} {'INTEGER' if self._spec.attributes[a] is AttributeType.BOOLEAN else 'TEXT'}"
            for a in self._single
        )
        self._db.execute(f"CREATE TABLE {ns}_docs (row INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL{columns})")
        for table in self._multi.values():
            self._db.execute(f"CREATE TABLE {table} (row INTEGER NOT NULL, value TEXT NOT NULL)")
            self._db.execute(f"CREATE INDEX {table}_row ON {table} (row, value)")
        for table in self._fields.values():
            self._db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize='ascii', columnsize=0)")
            self._db.execute(f"CREATE VIRTUAL TABLE {table}_vocab USING fts5vocab({table}, 'instance')")
            self._db.execute(f"CREATE VIRTUAL TABLE {table}_df USING fts5vocab({table}, 'row')")

    @_locked
    def load(self, docs: Sequence[IndexDoc]) -> None:
        """The documents in one statement per table (a haystack's thousands of rows cost one call,
        not one each); a document whose id is stored already, or comes again later in `docs`,
        replaces it, as `upsert` does. Every document is checked before anything is written."""
        latest = {doc.id: doc for doc in docs}
        for doc in latest.values():
            self._spec.check_doc(doc)
            if self._spec.dimensions and doc.vector is None:
                raise ValueError(
                    f"document {doc.id!r} has no vector but the index has {self._spec.dimensions} dimensions"
                )
        batch = [(self._row(doc.id), doc) for doc in latest.values()]
        marks = ", ?" * len(self._single)
        self._db.executemany(
            f"INSERT INTO {self._ns}_docs VALUES (?, ?{marks})",
            [(row, doc.id, *(doc.attributes.get(a) for a in self._single)) for row, doc in batch],
        )
        for name, table in self._multi.items():
            self._db.executemany(
                f"INSERT INTO {table} VALUES (?, ?)", [(row, v) for row, doc in batch for v in doc.values(name)]
            )
        for name, table in self._fields.items():
            stats, bodies = self._stats[name], []
            for row, doc in batch:
                body, length = _terms(doc.fields.get(name, ""))
                stats.add(row, length)
                if length:  # an empty field is absent: it must not count in N or avglen
                    bodies.append((row, body))
            self._db.executemany(f"INSERT INTO {table} (rowid, body) VALUES (?, ?)", bodies)
        for row, doc in batch:
            if doc.vector is not None and self._spec.dimensions:
                self._store_vector(row, doc.vector)
        self._db.commit()

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        self.load(docs)

    def _row(self, doc_id: str) -> int:
        """The row a document is written to: a new one, or its old one, emptied."""
        row = self._rows.get(doc_id)
        if row is None:
            row = len(self._rows)
            self._rows[doc_id] = row
            self._ids.append(doc_id)
            return row
        self._db.execute(f"DELETE FROM {self._ns}_docs WHERE row = ?", (row,))
        for table in self._multi.values():
            self._db.execute(f"DELETE FROM {table} WHERE row = ?", (row,))
        for name, table in self._fields.items():
            self._stats[name].remove(row)
            self._db.execute(f"DELETE FROM {table} WHERE rowid = ?", (row,))
        return row

    def _store_vector(self, row: int, vector: np.ndarray) -> None:
        if row == len(self._vectors):
            grown = np.zeros((max(16, 2 * row), self._vectors.shape[1]), dtype=np.float64)
            grown[:row] = self._vectors[:row]
            self._vectors = grown
        self._vectors[row] = unit(vector)

    @_locked
    def wait_ready(self, expected: int, timeout: float) -> None:  # noqa: ARG002 - the Backend protocol's signature; writes are synchronous, nothing to wait for
        (count,) = self._db.execute(f"SELECT count(*) FROM {self._ns}_docs").fetchone()
        if count != expected:
            raise BackendUnavailable(f"embedded index {self._ns}: {count} documents, expected {expected}")

    def _where(self, filters: Filters) -> tuple[str, list[object]]:
        clauses: list[str] = ["1"]
        params: list[object] = []
        for condition in filters.conditions:
            name = condition.attribute
            table = self._multi.get(name)
            if isinstance(condition, Present | Absent):
                test = f"EXISTS (SELECT 1 FROM {table} s WHERE s.row = d.row)" if table else f"d.a_{name} IS NOT NULL"
                clauses.append(test if isinstance(condition, Present) else f"NOT {test}")
                continue
            values = condition.accepted
            marks = ",".join("?" * len(values))
            if table:
                clauses.append(f"EXISTS (SELECT 1 FROM {table} s WHERE s.row = d.row AND s.value IN ({marks}))")
            else:
                clauses.append(f"d.a_{name} IN ({marks})")
            params.extend(values)
        return " AND ".join(clauses), params

    @_locked
    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        wanted = json.dumps(list(dict.fromkeys(ids)))
        columns = "".join(f", d.a_{a}" for a in self._single)
        found: dict[str, dict[str, Value]] = {}
        rows: dict[int, str] = {}
        query = f"SELECT d.row, d.id{columns} FROM {self._ns}_docs d WHERE d.id IN (SELECT value FROM json_each(?))"
        for row, doc_id, *values in self._db.execute(query, (wanted,)):
            rows[row] = doc_id
            found[doc_id] = {
                a: stored_value(self._spec.attributes[a], v)
                for a, v in zip(self._single, values, strict=True)
                if v is not None
            }
        for name, table in self._multi.items():
            marks = ",".join("?" * len(rows))
            held_by: dict[int, set[str]] = defaultdict(set)
            for row, value in self._db.execute(f"SELECT row, value FROM {table} WHERE row IN ({marks})", list(rows)):
                held_by[row].add(value)
            for row, held in held_by.items():
                found[rows[row]][name] = frozenset(held)
        return dict(found)

    @_locked
    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        """The admitted documents' postings with their tf from FTS5's instance vocabulary; n, N and
        the lengths from the statistics kept at write time, over every document."""
        self._spec.check_filters(filters)
        wanted = list(dict.fromkeys(terms))
        if not wanted or limit <= 0:
            return []
        where, params = self._where(filters)
        postings = self._db.execute(
            " UNION ALL ".join(
                f"SELECT {i}, v.term, v.doc, count(*), d.id FROM {table}_vocab v JOIN {self._ns}_docs d "
                f"ON d.row = v.doc WHERE v.term IN (SELECT value FROM json_each(?)) AND {where} GROUP BY v.term, v.doc"
                for i, table in enumerate(self._fields.values())
            ),
            [value for _ in self._fields for value in (json.dumps(wanted), *params)],
        )
        names = list(self._fields)
        stats = [self._stats[name] for name in names]
        weights = [self._spec.fields[name] for name in names]
        # what every posting of a field, or of a (field, term), shares: computed once, not per posting
        # (a LoCoMo turn-level question reads about a thousand postings)
        lengths = [field_stats.lengths for field_stats in stats]
        averages = [field_stats.avglen if field_stats.lengths else 0.0 for field_stats in stats]
        idfs = {
            key: math.log(1 + (len(lengths[key[0]]) - n + 0.5) / (n + 0.5))
            for key, n in self._document_frequencies(wanted).items()
        }
        parts: dict[str, list[tuple[int, str, float]]] = defaultdict(list)
        for field, term, row, tf, doc_id in postings.fetchall():
            norm = tf + BM25_K1 * (1 - self._b + self._b * lengths[field][row] / averages[field])
            parts[doc_id].append((field, term, weights[field] * idfs[field, term] * tf * (BM25_K1 + 1) / norm))
        totals = {doc_id: sum(score for _, _, score in found) for doc_id, found in parts.items()}
        # `ranked`'s order, with Hit and Clause objects made only for the hits returned
        best = heapq.nsmallest(limit, totals, key=lambda doc_id: rank_key(totals[doc_id], doc_id))
        return [Hit(d, totals[d], tuple(Clause(names[f], term, score) for f, term, score in parts[d])) for d in best]

    def _document_frequencies(self, terms: list[str]) -> dict[tuple[int, str], int]:
        """n per (field position, term): documents of the field holding the term, over every document."""
        found = self._db.execute(
            " UNION ALL ".join(
                f"SELECT {i}, term, doc FROM {table}_df WHERE term IN (SELECT value FROM json_each(?))"
                for i, table in enumerate(self._fields.values())
            ),
            [json.dumps(terms)] * len(self._fields),
        )
        return {(field, term): n for field, term, n in found}

    @_locked
    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        if not self._spec.dimensions:
            raise BackendUnavailable(f"embedded index {self._ns} was created without vectors")
        self._spec.check_filters(filters)
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

    @_locked
    def drop(self) -> None:
        """The namespace is its database: closed, it is gone (a second drop does nothing)."""
        self._release()

    @_locked
    def release(self) -> None:
        """Its memory given back when the backend closes: the run's own drop of it (reported when
        it fails) is `drop`, not this."""
        self._release()

    def _release(self) -> None:
        self._db.close()
        self._stats = {f: _FieldStats() for f in self._spec.fields}
        self._rows.clear()
        self._ids.clear()
        self._vectors = self._vectors[:0]


class EmbeddedBackend:
    """In-process, no services: the default and the reference the other backends are held to."""

    name = "embedded"

    def __init__(self, *, bm25_b: float = BM25_B):
        """`bm25_b`: the contract's b unless given; another one makes the reference an engine with
        that b (RediSearch 2.x's 0.5), so tests can hold it to every number but that."""
        self.bm25_b = bm25_b
        self._open: weakref.WeakSet[EmbeddedIndex] = weakref.WeakSet()
        self._opening = threading.Lock()

    def info(self) -> BackendInfo:
        return BackendInfo(
            backend=self.name,
            engine="sqlite fts5 + numpy",
            server_version=f"sqlite {sqlite3.sqlite_version}, numpy {np.__version__}",
            lexical_scorer=lexical_scorer(self.bm25_b),
            vector_engine="numpy exact cosine",
        )

    def create_index(self, namespace: str, spec: IndexSpec) -> EmbeddedIndex:
        index = EmbeddedIndex(namespace, spec, self.bm25_b)
        with self._opening:
            self._open.add(index)
        return index

    def close(self) -> None:
        """Every namespace still open is released: an in-memory engine keeps nothing past its run."""
        with self._opening:
            open_now = list(self._open)
        for index in open_now:
            index.release()


def _open(_url: str | None, _options: ConnectOptions) -> EmbeddedBackend:
    return EmbeddedBackend()


DESCRIPTOR = BackendDescriptor("embedded", _open, contract=ContractNotes(examples=100))
