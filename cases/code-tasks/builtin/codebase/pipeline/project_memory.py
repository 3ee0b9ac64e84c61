"""A project's records in one index of any backend: loaded once, searched in bm25, vector or
hybrid mode, fetched by kind, path or folder through the engine's generic filters.

The engine sees generic fields (title, path, text) and attributes (kind, path, parent, language,
folders); what a record means stays here. Code is analysed so identifiers are found by their
parts as well as whole: `handleQuery` indexes as `handlequery handle query`, and a query is
analysed the same way, so `handle query`, `handleQuery` and `handle_query` all reach it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np

from harness.backends.base import AnyOf, AttributeType, Backend, Eq, Filters, Index, IndexDoc, IndexSpec
from harness.models.project import Project, ProjectRecord, RecordKind
from harness.pipeline.fusion import RRF_K, ranks, rrf
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.text import STOPWORDS, tokenize

PROJECT_FIELDS = {"title": 2.0, "path": 1.0, "text": 1.0}
"""A name or heading that matches counts twice what a word of the body does."""
ATTRIBUTES = {
    "kind": AttributeType.KEYWORD,
    "path": AttributeType.KEYWORD,
    "parent": AttributeType.KEYWORD,
    "language": AttributeType.KEYWORD,
    "folders": AttributeType.KEYWORDS,
}
"""The record's kind, file path, parent id, language, and every folder above it (to search under one)."""
EMBED_CHARS = 2000
"""Of a record's text, what is embedded (the encoders read a few hundred tokens at most)."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def code_terms(text: str, drop_stopwords: bool = False) -> list[str]:
    """Lowercased word tokens, each camelCase or PascalCase word also split into its parts
    (`HybridSearch` -> `hybridsearch hybrid search`); underscores split as everywhere."""
    terms: list[str] = []
    for word in re.findall(r"[^\W_]+", text):
        parts = _CAMEL.split(word)
        for token in tokenize(word) + (tokenize(" ".join(parts)) if len(parts) > 1 else []):
            if not (drop_stopwords and token in STOPWORDS):
                terms.append(token)
    return terms


def folders_of(path: str) -> frozenset[str]:
    """Every folder above `path` (`a`, `a/b` for `a/b/c.py`)."""
    return frozenset(str(p) for p in PurePosixPath(path).parents if str(p) != ".")


@dataclass(frozen=True, slots=True)
class Found:
    record: ProjectRecord
    rank: int
    score: float


class ProjectMemory:
    """Owns the records; the engine behind `Index` does the searching and filtering."""

    def __init__(self, index: Index, embedder: TextEmbedder | None = None, rrf_k: int = RRF_K):
        self._index = index
        self._embedder = embedder
        self._rrf_k = rrf_k
        self._records: dict[str, ProjectRecord] = {}
        self._docs: dict[str, IndexDoc] = {}

    @classmethod
    def open(cls, backend: Backend, namespace: str, embedder: TextEmbedder | None = None) -> ProjectMemory:
        """Project memory on a fresh namespace; vectors are indexed only when an embedder is given."""
        spec = IndexSpec(PROJECT_FIELDS, embedder.dimensions if embedder else None, ATTRIBUTES)
        return cls(backend.create_index(namespace, spec), embedder)

    @property
    def index(self) -> Index:
        return self._index

    # -- writes -------------------------------------------------------------------------------

    def load(self, project: Project) -> None:
        records = list(project.records)
        docs = [_doc(r, v) for r, v in zip(records, self._vectors(records), strict=True)]
        self._index.load(docs)
        self._remember(records, docs)
        self._index.wait_ready(len(self._records), timeout=60.0)

    def put(self, record: ProjectRecord) -> None:
        """Create or replace one record (a fact a conversation stated); the next search sees it."""
        (vector,) = self._vectors([record])
        doc = _doc(record, vector)
        self._index.upsert([doc])
        self._remember([record], [doc])

    def _remember(self, records: Sequence[ProjectRecord], docs: Sequence[IndexDoc]) -> None:
        for record, doc in zip(records, docs, strict=True):
            self._records[record.id] = record
            self._docs[record.id] = doc

    def _vectors(self, records: Sequence[ProjectRecord]) -> Sequence[np.ndarray | None]:
        if self._embedder is None:
            return [None] * len(records)
        return list(self._embedder.embed([embedding_text(r) for r in records]))

    # -- reads --------------------------------------------------------------------------------

    def record(self, record_id: str) -> ProjectRecord:
        return self._records[record_id]

    def records(self) -> Iterable[ProjectRecord]:
        return self._records.values()

    def search(
        self,
        query: str,
        mode: Mode = Mode.BM25,
        limit: int = 10,
        *,
        kinds: Iterable[RecordKind] | None = None,
        path: str | None = None,
        under: str | None = None,
    ) -> list[Found]:
        """The `limit` best records for `query` among those the restrictions admit (kinds, one
        file's path, a folder the record is under), ranked by the engine in `mode`."""
        filters = restrict(kinds=kinds, path=path, under=under)
        if mode is Mode.BM25:
            hits = self._lexical(query, filters, limit)
        elif mode is Mode.VECTOR:
            hits = self._vector(query, filters, limit)
        else:
            lexical, vector = self._lexical(query, filters, limit), self._vector(query, filters, limit)
            fused = rrf(
                {"bm25": ranks([i for i, _ in lexical]), "vector": ranks([i for i, _ in vector])}, limit, self._rrf_k
            )
            hits = [(h.id, h.score) for h in fused]
        return [Found(self._records[i], rank, score) for rank, (i, score) in enumerate(hits, 1)]

    def fetch(
        self, *, kinds: Iterable[RecordKind] | None = None, path: str | None = None, under: str | None = None
    ) -> list[ProjectRecord]:
        """Every record the restrictions admit, in load order (the filters' reference semantics)."""
        filters = restrict(kinds=kinds, path=path, under=under)
        return [self._records[i] for i, doc in self._docs.items() if filters.admits(doc)]

    def _lexical(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        terms = list(dict.fromkeys(code_terms(query, drop_stopwords=True)))
        if not terms or filters.admits_nothing:
            return []
        return [(h.id, h.score) for h in self._index.lexical(terms, filters, limit)]

    def _vector(self, query: str, filters: Filters, limit: int) -> list[tuple[str, float]]:
        if self._embedder is None:
            raise ValueError("vector and hybrid modes need project memory opened with an embedder")
        if not query.strip() or filters.admits_nothing:
            return []
        (vector,) = self._embedder.embed([query])
        return [(h.id, h.score) for h in self._index.vector(vector, filters, limit)]


def restrict(
    *, kinds: Iterable[RecordKind] | None = None, path: str | None = None, under: str | None = None
) -> Filters:
    conditions: list[Eq | AnyOf] = []
    if kinds is not None:
        conditions.append(AnyOf("kind", frozenset(k.value for k in kinds)))
    if path is not None:
        conditions.append(Eq("path", path))
    if under is not None:
        conditions.append(Eq("folders", under.strip("/")))
    return Filters(*conditions)


def embedding_text(record: ProjectRecord) -> str:
    return f"{record.title}\n{record.path}\n{record.text}"[:EMBED_CHARS]


def _doc(record: ProjectRecord, vector: np.ndarray | None) -> IndexDoc:
    fields = {
        "title": " ".join(code_terms(record.title)),
        "path": " ".join(code_terms(record.path)),
        "text": " ".join(code_terms(record.text, drop_stopwords=True)),
    }
    attributes: dict[str, str | frozenset[str]] = {"kind": record.kind.value, "folders": folders_of(record.path)}
    if record.path:
        attributes["path"] = record.path
    if record.parent is not None:
        attributes["parent"] = record.parent
    if record.language is not None:
        attributes["language"] = record.language
    return IndexDoc(record.id, fields, attributes, vector)
