"""Calls resolved to production code first, and through a method's receiver to its own type, on
an original Go and TypeScript fixture: a handler's call through an interface must not land on a
test's stub, and a test-only helper is still found when nothing else defines it."""

from __future__ import annotations

import pytest

from harness.models.project import Project, is_test_path
from harness.suites.projects import ingest

FILES = {
    "search/service.go": (
        "package search\n\n"
        "type Searcher interface {\n\tHybridSearch(q string) []string\n}\n\n"
        "type SearchService struct{ cache *Cache }\n\n"
        "func (s *SearchService) HybridSearch(q string) []string {\n\treturn s.rank(q)\n}\n\n"
        "func (s *SearchService) rank(q string) []string {\n\treturn nil\n}\n\n"
        "type Cache struct{}\n\n"
        "func (c *Cache) rank(q string) []string {\n\treturn nil\n}\n"
    ),
    "search/service_test.go": (
        "package search\n\n"
        "type stubSearcher struct{}\n\n"
        "func (f *stubSearcher) HybridSearch(q string) []string {\n\treturn nil\n}\n"
    ),
    "server/handler.go": (
        'package server\n\nimport "example.com/app/search"\n\n'
        "type Handler struct{ search search.Searcher }\n\n"
        "func (h *Handler) Query(q string) {\n\th.search.HybridSearch(q)\n}\n"
    ),
    "server/handler_test.go": (
        'package server\n\nimport "testing"\n\n'
        "func onlyInTests() {}\n\n"
        'func TestQuery(t *testing.T) {\n\tonlyInTests()\n\tvar h Handler\n\th.search.HybridSearch("x")\n}\n'
    ),
    "server/use.go": "package server\n\nfunc use() {\n\tonlyInTests()\n}\n",
    "server/lookup.go": (
        "package server\n\ntype finder interface {\n\tFind(id string) error\n}\n\n"
        "type Lookup struct{ f finder }\n\nfunc (l *Lookup) Get(id string) error {\n\treturn l.f.Find(id)\n}\n"
    ),
    "db/store.go": "package db\n\ntype Store struct{}\n\nfunc (s *Store) Find(id string) error {\n\treturn nil\n}\n",
    "web/store.ts": (
        "export class Store {\n  save(): void {\n    this.flush();\n  }\n  flush(): void {}\n}\n\n"
        "export class Cache {\n  flush(): void {}\n}\n"
    ),
}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("app")
    for relative, text in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return ingest(root)


def calls(project: Project, record_id: str) -> tuple[str, ...]:
    return next(r.calls for r in project.records if r.id == record_id)


def test_a_call_through_an_interface_skips_the_tests_stub(app: Project) -> None:
    assert calls(app, "server/handler.go#Handler.Query") == (
        "search/service.go#Searcher.HybridSearch",
        "search/service.go#SearchService.HybridSearch",
    )


def test_a_call_to_an_interface_method_reaches_its_implementations(app: Project) -> None:
    """The interface's method is a symbol of its own; a call that lands only on it (its file
    declares the interface) also reaches the concrete methods of that name."""
    assert calls(app, "server/lookup.go#Lookup.Get") == ("server/lookup.go#finder.Find", "db/store.go#Store.Find")


def test_a_test_calls_production_code_too(app: Project) -> None:
    assert calls(app, "server/handler_test.go#TestQuery") == (
        "server/handler_test.go#onlyInTests",
        "search/service.go#Searcher.HybridSearch",
        "search/service.go#SearchService.HybridSearch",
    )


def test_a_name_only_tests_define_still_resolves(app: Project) -> None:
    assert calls(app, "server/use.go#use") == ("server/handler_test.go#onlyInTests",)


def test_a_call_through_the_receiver_means_the_owners_method(app: Project) -> None:
    assert calls(app, "search/service.go#SearchService.HybridSearch") == ("search/service.go#SearchService.rank",)
    assert calls(app, "web/store.ts#Store.save") == ("web/store.ts#Store.flush",)


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("internal/a_test.go", True),
        ("web/a.test.ts", True),
        ("web/a.spec.jsx", True),
        ("pkg/test_a.py", True),
        ("spec/models/a.rb", True),
        ("src/__tests__/a.js", True),
        ("internal/testing.go", False),
        ("web/latest.ts", False),
        ("contest/a.py", False),
    ],
)
def test_test_paths(path: str, test: bool) -> None:
    assert is_test_path(path) is test


def test_a_name_lookup_means_production_code_first(app: Project) -> None:
    """A node named in a task (`impact` of HybridSearch) starts from the production symbol, so its
    callers are the handler's, not the test double's own file."""
    from harness.pipeline.code_answer import SymbolTable

    table = SymbolTable(app.records)
    assert [r.id for r in table.lookup("HybridSearch")] == [
        "search/service.go#Searcher.HybridSearch",
        "search/service.go#SearchService.HybridSearch",
    ]
    assert [r.id for r in table.lookup("stubSearcher")] == ["search/service_test.go#stubSearcher"]
    callers = table.walk(table.lookup("HybridSearch"), 1, callers=True)
    assert {r.path for r in callers} == {"search/service.go", "server/handler.go", "server/handler_test.go"}
