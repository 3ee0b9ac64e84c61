"""Ingestion of the sample project: what each parser must make of its file, read from the
sample's text (tests/projects/sample.py), and what is skipped and why."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.models.project import Project, ProjectRecord, RecordKind
from harness.suites.projects import ProjectError, ingest
from harness.suites.projects.calls import CallResolver, Symbol
from harness.suites.projects.ingest import OVERVIEW_ID
from harness.suites.projects.overview import overview
from harness.suites.projects.structure import structure
from tests.projects.sample import BINARY, HUGE


def by_id(project: Project) -> dict[str, ProjectRecord]:
    return {r.id: r for r in project.records}


def test_ids_are_unique_and_parents_exist(sample: Project) -> None:
    records = by_id(sample)
    assert len(records) == len(sample.records)
    for record in sample.records:
        assert record.parent is None or record.parent in records, record.id
        assert all(callee in records for callee in record.calls), record.id


def test_ingestion_is_deterministic(sample_root: Path, sample: Project) -> None:
    assert ingest(sample_root).records == sample.records


def test_folders_files_and_parents(sample: Project) -> None:
    records = by_id(sample)
    folders = {r.id for r in sample.records if r.kind is RecordKind.FOLDER}
    assert folders == {"books", "data", "docs", "images", "orchard", "server", "web"}
    assert records["server/main.go"].parent == "server"
    assert records["README.md"].parent is None
    assert "main.go" in records["server"].text
    assert "store.go" in records["server"].text


def test_python_symbols_docstrings_and_calls(sample: Project) -> None:
    records = by_id(sample)
    record = records["orchard/harvest.py#Ledger.record"]
    assert record.kind is RecordKind.SYMBOL
    assert record.parent == "orchard/harvest.py#Ledger"
    assert record.line == 11
    assert record.calls == ("orchard/harvest.py#Ledger._check", "orchard/harvest.py#total_weight")
    # a nested function is a symbol of its own, and its calls are not its parent's
    assert records["orchard/trees.py#helper"].calls == ("orchard/trees.py#helper.inner",)
    # resolution across files: total_weight is defined in harvest.py only
    assert records["orchard/trees.py#helper.inner"].calls == ("orchard/harvest.py#total_weight",)
    # a class's own text is its outline, not its methods' bodies
    assert "raise ValueError" not in records["orchard/harvest.py#Ledger"].text
    assert 'unit = "kg"' in records["orchard/harvest.py#Ledger"].text


def test_module_summary_lists_docstring_and_symbols(sample: Project) -> None:
    summary = by_id(sample)["orchard/harvest.py"].text
    assert "Harvest bookkeeping." in summary
    assert "def total_weight(weights): — Sum of harvest weights." in summary
    assert "class Ledger: — Keeps every harvest." in summary


def test_python_decorator_route(sample: Project) -> None:
    route = by_id(sample)["orchard/harvest.py#GET /harvests"]
    assert route.kind is RecordKind.ROUTE
    assert route.calls == ("orchard/harvest.py#list_harvests",)


def test_go_methods_routes_and_cross_file_calls(sample: Project) -> None:
    records = by_id(sample)
    assert records["server/main.go#Server.listTrees"].parent == "server/main.go#Server"
    assert records["server/main.go#Server.listTrees"].calls == (
        "server/store.go#Store.AllTrees",
        "server/main.go#writeJSON",
    )
    assert records["server/main.go#GET /api/trees"].calls == ("server/main.go#Server.listTrees",)
    # what the project does not define stays as written, outside the call graph
    assert records["server/main.go#Server.Routes"].external_calls == ("mux.HandleFunc",)
    assert records["server/main.go#Server.listTrees"].external_calls == ()
    # each distinct call as written, in call order, with what it resolved to (none: outside)
    assert records["server/main.go#Server.listTrees"].call_sites == (
        ("s.store.AllTrees", ("server/store.go#Store.AllTrees",)),
        ("writeJSON", ("server/main.go#writeJSON",)),
    )
    assert records["server/main.go#Server.Routes"].call_sites[0] == ("mux.HandleFunc", ())
    assert set(records["web/api.ts#request"].external_calls) == {"fetch", ".then", "r.text"}
    # a bare path registers every method; an inline handler's calls are the route's
    assert records["server/main.go#ANY /health"].calls == ("server/main.go#writeOK",)
    assert records["server/store.go#Store.AllTrees"].line == 7
    assert "Package server serves the orchard API." in records["server/main.go"].text
    assert "— Routes registers the handlers." in records["server/main.go"].text


def test_typescript_and_javascript_symbols(sample: Project) -> None:
    records = by_id(sample)
    assert records["web/api.ts#fetchTrees"].calls == ("web/api.ts#request", "web/api.ts#parseTrees")
    assert records["web/api.ts#TreeList.refresh"].calls == ("web/api.ts#fetchTrees",)
    assert records["web/api.ts#TreeView"].kind is RecordKind.SYMBOL
    assert records["web/api.ts#POST /api/harvests"].calls == ("web/api.ts#saveHarvest",)
    assert "— Fetches the trees." in records["web/api.ts"].text
    assert records["web/util.js#formatWeight"].language == "javascript"


def test_markdown_sections_by_heading(sample: Project) -> None:
    records = by_id(sample)
    sections = [r.id for r in sample.records if r.path == "docs/notes.md" and r.kind is RecordKind.SECTION]
    # the `#` line inside the fence is not a heading; a repeated heading path is named by its line
    assert sections == [
        "docs/notes.md#Planning",
        "docs/notes.md#Planning/Season",
        "docs/notes.md#Planning/Season/Pruning",
        "docs/notes.md#Planning/Season~15",
    ]
    assert records["docs/notes.md#Planning/Season/Pruning"].parent == "docs/notes.md#Planning/Season"
    assert records["docs/notes.md#Planning/Season/Pruning"].text == "### Pruning\n\nPrune in winter."
    assert "# not a heading" in records["docs/notes.md#Planning/Season"].text
    assert records["docs/notes.md"].text.startswith("docs/notes.md (markdown)\nNotes before any heading.")


def test_epub_by_chapter(sample: Project) -> None:
    chapters = [r for r in sample.records if r.path == "books/tales.epub" and r.kind is RecordKind.SECTION]
    assert [c.title for c in chapters] == ["The First Frost", "Spring Blossom"]
    assert "The apples froze overnight." in chapters[0].text
    assert "Orchard Tales by A. Gardener" in by_id(sample)["books/tales.epub"].text


def test_other_text_files_are_whole_files(sample: Project) -> None:
    records = by_id(sample)
    assert records["data/trees.json"].text == '{"trees": ["apple", "pear"]}\n'
    assert records["web/style.css"].language == "css"
    assert not any(r.parent == "web/style.css" for r in sample.records)


def test_skipped_files_with_reasons(sample: Project) -> None:
    assert {s.path: s.reason for s in sample.skipped} == {
        HUGE: "over 1024 KiB",
        BINARY: "binary",
        "link.md": "symbolic link",
        "node_modules/": "tool or dependency folder",
        "orchard/broken.py": "Python syntax error line 1: invalid syntax",
    }


def test_overview(sample: Project) -> None:
    overview = by_id(sample)[OVERVIEW_ID]
    assert overview.kind is RecordKind.OVERVIEW
    text = overview.text
    assert "Orchard tracks fruit trees and their harvests." in text
    assert "Start the server" not in text  # the lead stops at the second heading
    assert "pyproject.toml: flask>=3, numpy, pytest [dev]" in text
    assert "server/ (2 files: go 2)" in text
    assert "docs/notes.md: Planning" in text
    assert "docs/notes.md: Pruning" not in text  # third-level headings stay out


def test_structure_report(sample: Project) -> None:
    report = structure(sample)
    assert report.kinds == {"overview": 1, "folder": 7, "file": 13, "section": 8, "symbol": 25, "route": 4}
    assert report.routes == 4
    assert report.call_edges == sum(len(r.calls) for r in sample.records)
    assert report.skipped[BINARY] == "binary"
    assert report.languages["go"] == 2


def test_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="no project folder"):
        ingest(tmp_path / "absent")
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ProjectError, match="is not a folder"):
        ingest(tmp_path / "file.txt")


def test_call_resolution_prefers_the_nearest_scope() -> None:
    resolver = CallResolver(
        [
            Symbol("a/x.py#run", "a/x.py", "run"),
            Symbol("a/y.py#run", "a/y.py", "run"),
            Symbol("b/fusion.py#run", "b/fusion.py", "run"),
            Symbol("c/z.py#Job.run", "c/z.py", "Job.run"),
        ]
    )
    assert resolver.resolve("a/x.py", ["run"])[:2] == (("a/x.py#run",), ())  # same file
    assert resolver.resolve("a/x.py", ["fusion.run"])[:2] == (("b/fusion.py#run",), ())  # the module the call names
    assert resolver.resolve("a/w.py", ["run"])[:2] == (("a/x.py#run", "a/y.py#run"), ())  # same folder
    assert resolver.resolve("d/w.py", ["job.run"])[:2] == (
        ("a/x.py#run", "a/y.py#run", "b/fusion.py#run", "c/z.py#Job.run"),
        (),
    )  # anywhere
    assert resolver.resolve("a/x.py", ["print", "run", "os.path.join", "run"]) == (
        ("a/x.py#run",),
        ("print", "os.path.join"),
        (("print", ()), ("run", ("a/x.py#run",)), ("os.path.join", ())),
    )  # each call once, in order, with what it links to


def test_excluded_paths_are_skipped(sample_root: Path) -> None:
    project = ingest(sample_root, exclude=["web", "docs/notes.md"])
    assert not any(r.path.startswith("web/") or r.path == "docs/notes.md" for r in project.records)
    reasons = {s.path: s.reason for s in project.skipped}
    assert reasons["web/"] == "excluded"
    assert reasons["docs/notes.md"] == "excluded"
    assert any(r.path == "server/main.go" for r in project.records)


def test_manifest_dependencies_of_every_kind() -> None:
    texts = {
        "web/package.json": '{"dependencies": {"react": "^18"}, "devDependencies": {"vite": "5"}}',
        "go.mod": "module example.com/x\n\nrequire (\n\tgithub.com/a/b v1.2.3\n)\nrequire golang.org/x/c v0.1.0\n",
        "api/pyproject.toml": "[project\nbroken",
    }
    text = overview("x", {}, texts)
    assert "web/package.json: react ^18, vite 5 [dev]" in text
    assert "go.mod: module example.com/x, github.com/a/b v1.2.3, golang.org/x/c v0.1.0" in text
    assert "api/pyproject.toml: (not parseable)" in text


def test_unreadable_files_and_folders_are_skipped(sample_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Root reads everything whatever its mode: the failures are injected.)"""
    real_open, real_scandir = Path.open, os.scandir

    def open_(self: Path, *args, **kwargs):
        if self.name == "store.go":
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    def scandir(path):
        if Path(path).name == "docs":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(Path, "open", open_)
    monkeypatch.setattr(os, "scandir", scandir)
    project = ingest(sample_root)
    reasons = {s.path: s.reason for s in project.skipped}
    assert reasons["server/store.go"] == "unreadable: Permission denied"
    assert reasons["docs/"] == "unreadable: Permission denied"
    assert not any(r.path.startswith("docs/") or r.path == "server/store.go" for r in project.records)
