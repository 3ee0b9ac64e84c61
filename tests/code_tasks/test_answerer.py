"""The deterministic answerer over the ledger example: identifiers, name lookups, routes and
call-graph walks, with expectations read from the example's code."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends import registry
from harness.models.code_task import CodeTask
from harness.models.project import Project, ProjectRecord, RecordKind
from harness.pipeline.code_answer import CodeAnswerer, SymbolTable, identifiers, split_route
from harness.pipeline.code_rules import code_rules
from harness.pipeline.project_memory import ProjectMemory
from harness.pipeline.settings import Mode


@pytest.fixture(scope="module")
def table(ledger: Project) -> SymbolTable:
    return SymbolTable(ledger.records)


@pytest.fixture(scope="module")
def answerer(ledger: Project):
    engine = registry.connect("embedded")
    memory = ProjectMemory.open(engine, "ledger")
    memory.load(ledger)
    yield CodeAnswerer(memory)
    engine.close()


def ids(records) -> list[str]:
    return [r.id for r in records]


def test_identifiers_in_prose() -> None:
    text = "Does `process` reach Store.Find via queue_worker, HybridSearch or internal/search/bm25.go::tokenize? e.g. BM25."
    assert identifiers(text) == [
        "process",
        "Store.Find",
        "queue_worker",
        "HybridSearch",
        "internal/search/bm25.go::tokenize",
        "BM25",
    ]
    assert identifiers("What does the health endpoint do?") == []


def test_lookup_by_name_qualified_name_file_and_substring(table: SymbolTable) -> None:
    assert ids(table.lookup("Find")) == ["internal/store/store.go#Store.Find"]
    assert ids(table.lookup("store.Find")) == ["internal/store/store.go#Store.Find"]
    assert ids(table.lookup("bm25.go::tokenize")) == ["internal/search/bm25.go#tokenize"]
    assert ids(table.lookup("recency")) == ["internal/search/recency.go"]  # a file stem
    assert ids(table.lookup("Recency")) == ["internal/search/recency.go"]
    assert ids(table.lookup("BM25")) == ["internal/search/bm25.go"]
    assert ids(table.lookup("RecencyBoost")) == ["internal/search/recency.go#ApplyRecencyBoost"]  # substring
    assert table.lookup("NoSuchThing") == []


def test_routes_with_group_prefix_and_any_method(table: SymbolTable) -> None:
    assert ids(table.routes("POST /api/v1/entries")) == ["internal/server/routes.go#POST /api/v1/entries"]
    assert table.routes("GET /api/v1/entries") == []  # another method
    assert ids(table.routes("GET /api/v1/entries/:id")) == ["internal/server/routes.go#GET /api/v1/entries/:id"]
    # a prefix the parser could not see: the longest route path ending the entry's
    assert ids(table.routes("GET /v2/health")) == ["internal/server/routes.go#GET /health"]
    assert split_route("/x") == ("ANY", "/x")


def test_trace_walks_callees_several_hops(table: SymbolTable) -> None:
    (run,) = table.lookup("Queue.Run")
    one = ids(table.walk([run], 1, callers=False))
    assert one == ["internal/queue/queue.go#Queue.Run", "internal/queue/queue.go#Queue.process"]
    three = ids(table.walk([run], 3, callers=False))
    assert three[2:] == [
        "internal/store/store.go#Store.Find",
        "internal/search/bm25.go#Index.Add",
        "internal/search/bm25.go#tokenize",
    ]


def test_impact_walks_callers(table: SymbolTable) -> None:
    (find,) = table.lookup("Find")
    assert set(ids(table.walk([find], 1, callers=True))) == {
        "internal/store/store.go#Store.Find",
        "internal/server/handlers/entries.go#GetEntry",
        "internal/queue/queue.go#Queue.process",
    }
    callers = ids(table.walk([find], 3, callers=True))
    assert "internal/queue/queue.go#Queue.Run" in callers
    assert "internal/server/routes.go#GET /api/v1/entries/:id" in callers


def test_layers_add_what_only_they_reach(answerer: CodeAnswerer) -> None:
    task = CodeTask.model_validate(
        {
            "id": "t",
            "category": "trace",
            "question": "What is the outbound call chain of the indexing worker?",
            "input": {"node": "Queue.Run", "max_depth": 4},
            "expect_symbols": ["tokenize"],
        }
    )
    answer = answerer.answer(task, Mode.BM25)
    assert answer.identifiers == ("Queue.Run",)  # from input.node
    graph = ids(answer.layers["graph"])
    assert "internal/search/bm25.go#tokenize" in graph
    names, _ = answer.surfaced("graph")
    assert "tokenize" in names
    # every layer adds only records the earlier ones did not surface
    seen = [i for layer in answer.layers.values() for i in ids(layer)]
    assert len(seen) == len(set(seen))


def test_agent_disabled_searches_only_the_fixed_tools(ledger: Project) -> None:
    from harness.models.code_task import AgentPass

    engine = registry.connect("embedded")
    memory = ProjectMemory.open(engine, "fixed")
    memory.load(ledger)
    task = CodeTask.model_validate(
        {"id": "t", "category": "flow", "question": "What does Store.Find do?", "input": {"entry": "GET /health"}}
    )
    answer = CodeAnswerer(memory, AgentPass(enabled=False)).answer(task, Mode.BM25)
    assert answer.layers["search"] == ()
    assert answer.identifiers == ()
    assert ids(answer.layers["graph"]) == [
        "internal/server/routes.go#GET /health",
        "internal/server/server.go#Server.health",
        "internal/store/store.go#Store.Status",
    ]
    engine.close()


def test_a_flow_lists_what_it_calls_outside_the_project(answerer: CodeAnswerer) -> None:
    task = CodeTask.model_validate(
        {"id": "t", "category": "flow", "question": "q", "input": {"entry": "POST /api/v1/entries"}}
    )
    answer = answerer.answer(task, Mode.BM25)
    # `signed` is the local name the write group's middleware was assigned to; c.Bind is echo's
    assert "signed" in answer.externals
    assert "c.Bind" in answer.externals
    assert "validateEntry" not in answer.externals  # the project's own: a record of the flow
    names, _ = answer.surfaced("graph")
    assert "signed" in names
    assert "signed" not in answer.surfaced("identifiers")[0]


def _fanned_project() -> Project:
    """A route to `handle`, which calls nine project functions and two library ones; `zeta`, its
    first call as written, is last by name but for `Zap`, and alone calls `deep`."""
    called = ["zeta", "alpha", "Beta", "gamma", "delta", "epsilon", "eta", "theta", "iota"]
    deep = ProjectRecord("a.go#deep", RecordKind.SYMBOL, "a.go", "deep", "deep")
    symbols = [
        ProjectRecord(
            f"a.go#{n}",
            RecordKind.SYMBOL,
            "a.go",
            n,
            n,
            calls=(deep.id,) if n == "zeta" else (),
            call_sites=(("deep", (deep.id,)),) if n == "zeta" else (),
        )
        for n in called
    ]
    sites = (*((f"s.{n}", (f"a.go#{n}",)) for n in called), ("fmt.Sprintf", ()), ("log.Zap", ()))
    handle = ProjectRecord(
        "a.go#handle",
        RecordKind.SYMBOL,
        "a.go",
        "handle",
        "handle",
        calls=tuple(f"a.go#{n}" for n in called),
        external_calls=("fmt.Sprintf", "log.Zap"),
        call_sites=sites,
    )
    route = ProjectRecord(
        "a.go#GET /x",
        RecordKind.ROUTE,
        "a.go",
        "GET /x",
        "GET /x",
        calls=(handle.id,),
        call_sites=(("handle", (handle.id,)),),
    )
    return Project("fan", Path("."), (route, handle, *symbols, deep))


@pytest.mark.parametrize(("rules", "capped"), [("harness", False), ("nano-brain-1", True), ("nano-brain-2", True)])
def test_a_flow_follows_only_the_rules_fanout_of_each_function(rules: str, capped: bool) -> None:
    """nano-brain's flow expands each function through its first `max_fanout` (8) callee names
    (a call's last part) in the alphabetical order of its edge query: `alpha` ... `iota` and
    `Sprintf` pass; `theta`, `zeta` (and so `deep`, which only `zeta` calls) and `Zap` do not,
    though `zeta` is called first. The harness's own rules follow every call."""
    engine = registry.connect("embedded")
    memory = ProjectMemory.open(engine, "fan")
    memory.load(_fanned_project())
    task = CodeTask.model_validate(
        {"id": "t", "category": "flow", "question": "q", "tools": ["flow"], "input": {"entry": "GET /x"}}
    )
    answer = CodeAnswerer(memory, rules=code_rules(rules)).answer(task, Mode.BM25)
    engine.close()
    names = set(answer.surfaced("graph")[0])
    assert {"handle", "alpha", "Beta", "gamma", "delta", "epsilon", "eta", "iota", "fmt.Sprintf"} <= names
    beyond = {"theta", "zeta", "deep", "log.Zap"}
    assert (beyond & names) == (set() if capped else beyond)


def test_the_answer_never_depends_on_the_expected_items(answerer: CodeAnswerer) -> None:
    """The answerer is handed the whole task: changing only what it expects changes nothing it
    surfaces (no expected symbol or file reaches the answer side)."""
    task = CodeTask.model_validate(
        {
            "id": "t",
            "category": "multi-tool",
            "question": "What does POST /api/v1/entries call, and what calls validateEntry?",
            "tools": ["flow", "impact", "query", "symbols"],
            "input": {"entry": "POST /api/v1/entries", "node": "validateEntry", "query": "entries"},
            "expect_symbols": ["validateEntry"],
            "expect_files": ["internal/store"],
        }
    )
    answer = answerer.answer(task, Mode.BM25)
    assert {h.tool for h in answer.hits} >= {"flow", "impact", "query"}
    other = task.model_copy(update={"expect_symbols": ("Zzz", "Store.Put"), "expect_files": ("web/",)})
    assert answerer.answer(other, Mode.BM25) == answer
    bare = task.model_copy(update={"expect_symbols": (), "expect_files": ()})
    assert answerer.answer(bare, Mode.BM25) == answer
