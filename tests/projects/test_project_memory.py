"""Project memory on every backend: the sample project loaded into one index, searched in every
mode, restricted by kind, file and folder through the engine's filters, and the same answers
(ids and scores) on every engine."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.models.project import Project, ProjectRecord, RecordKind
from harness.pipeline.project_memory import ProjectMemory, code_terms
from harness.pipeline.settings import Mode
from tests.backends.contract import B, engine_b, reference_engine
from tests.projects.embedder import SeededEmbedder

QUERIES = ["AllTrees", "harvest weights", "prune dead wood", "orchard api client", "first frost apples"]


@pytest.fixture(scope="module")
def memory(any_backend: Backend, sample: Project) -> Iterator[ProjectMemory]:
    loaded = ProjectMemory.open(any_backend, f"p{uuid.uuid4().hex[:12]}", SeededEmbedder())
    loaded.load(sample)
    yield loaded
    loaded.index.drop()


@pytest.fixture(scope="module")
def reference(sample: Project) -> Iterator[ProjectMemory]:
    """The same project on the embedded engine, which every backend must answer alike."""
    engine = registry.connect("embedded")
    loaded = ProjectMemory.open(engine, "reference", SeededEmbedder())
    loaded.load(sample)
    yield loaded
    engine.close()


def test_code_terms_split_identifiers() -> None:
    assert code_terms("HybridSearch") == ["hybridsearch", "hybrid", "search"]
    assert code_terms("handle_query HTTPServer") == ["handle", "query", "httpserver", "http", "server"]
    assert code_terms("the store", drop_stopwords=True) == ["store"]


def test_identifier_found_whole_and_by_parts(memory: ProjectMemory) -> None:
    assert memory.search("AllTrees")[0].record.id == "server/store.go#Store.AllTrees"
    assert "server/store.go#Store.AllTrees" in [f.record.id for f in memory.search("all trees", limit=5)]


def test_kind_path_and_folder_restrictions(memory: ProjectMemory) -> None:
    files = memory.search("trees", kinds=[RecordKind.FILE], limit=20)
    assert files
    assert all(f.record.kind is RecordKind.FILE for f in files)
    in_file = memory.search("trees", path="server/main.go", limit=20)
    assert in_file
    assert all(f.record.path == "server/main.go" for f in in_file)
    under = memory.search("trees", under="web", limit=20)
    assert under
    assert all(f.record.path.startswith("web/") for f in under)
    assert memory.search("trees", kinds=[]) == []


def test_fetch_by_kind_and_path(memory: ProjectMemory, sample: Project) -> None:
    routes = memory.fetch(kinds=[RecordKind.ROUTE])
    assert [r.id for r in routes] == [r.id for r in sample.records if r.kind is RecordKind.ROUTE]
    assert [r.id for r in memory.fetch(path="server/store.go")] == [
        "server/store.go",
        "server/store.go#Store",
        "server/store.go#Store.AllTrees",
    ]
    assert {r.path for r in memory.fetch(under="orchard", kinds=[RecordKind.FILE])} == {
        "orchard/__init__.py",
        "orchard/harvest.py",
        "orchard/trees.py",
    }


@pytest.mark.parametrize("mode", list(Mode))
def test_same_answers_as_the_embedded_engine(
    any_backend: Backend, memory: ProjectMemory, reference: ProjectMemory, mode: Mode, sample: Project
) -> None:
    if mode.needs_vectors and any_backend.info().vector_engine is None:
        pytest.skip(f"{any_backend.name}: no vector engine ({mode.value} mode is not run there)")
    if engine_b(any_backend) != B:  # the embedded engine with the backend's BM25 b (RediSearch 2.x: 0.5)
        reference = ProjectMemory.open(reference_engine(any_backend), "reference", SeededEmbedder())
        reference.load(sample)
    for query in QUERIES:
        got = memory.search(query, mode, limit=8)
        want = reference.search(query, mode, limit=8)
        assert [f.record.id for f in got] == [f.record.id for f in want], query
        # float32 engines compute the same cosines to about 1e-7; BM25 is the contract's to 1e-6
        assert [f.score for f in got] == pytest.approx([f.score for f in want], abs=1e-5), query
        assert got, query


def test_put_is_searchable_at_once(any_backend: Backend, sample: Project) -> None:
    memory = ProjectMemory.open(any_backend, f"p{uuid.uuid4().hex[:12]}")
    try:
        memory.load(sample)
        assert memory.search("quince") == []
        memory.put(ProjectRecord("fact:1", RecordKind.FACT, "", "user fact", "The user plants a quince tree."))
        assert [f.record.id for f in memory.search("quince")] == ["fact:1"]
    finally:
        memory.index.drop()
