"""The deterministic answerer of code tasks: what project memory surfaces for a task, without
ever reading the expected answers, under a code-task ruleset (`pipeline.code_rules`).

First the task's own tools (the fixed layer), in the order the task names them; then, when the
ruleset runs it, the dataset's agent pass (`query_question`, `query_input`, `symbols_identifiers`).
Every hit is tagged with its tool, whether it is fixed, and one of three cumulative layers:

1. search: the `query` tool and the agent's searches (the top `SEARCH_LIMIT` records each).
2. identifiers: the `symbols` tool and the agent's lookups of the names the question and inputs
   spell as code, in the ruleset's identifier pass.
3. graph: `flow` follows callees from the route `input.entry` names (and lists what its steps
   call outside the project, as nano-brain's flow does), `impact` follows callers and `trace`
   callees of `input.node` (under the harness's rules, without one, of the symbols the
   identifiers found), each up to `max_depth` hops; under nano-brain's rules a flow expands each
   function through only its first `flow_fanout` callee names, as nano-brain's flow does.

A hit surfaces names (a record's title; under nano-brain's rules a search result's text too, and
a trace's calls outside the project) and paths (the record's path; not for a flow under
nano-brain's rules); scoring matches expected symbols against names and files against paths.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from harness.models.code_task import FLOW_DEPTH, GRAPH_DEPTH, AgentPass, CodeTask, Tool
from harness.models.project import ProjectRecord, RecordKind, is_test_path
from harness.pipeline.code_rules import HARNESS_RULES, CodeTaskRules, IdentifierPass
from harness.pipeline.project_memory import ProjectMemory
from harness.pipeline.settings import Mode

SEARCH_LIMIT = 20
"""Records each search contributes (nano-brain's query and symbols limit)."""
LOOKUP_LIMIT = 20
"""Symbols a name lookup that matches no name exactly may return (by substring)."""
LAYERS = ("search", "identifiers", "graph")
SERVER_DEPTHS = {Tool.FLOW: (10, 10), Tool.IMPACT: (3, 1), Tool.TRACE: (10, 5)}
"""Per graph tool, (the most hops nano-brain's server walks, what it walks for a depth over
that): `handlers/flow.go` (its `flow.max_depth`, 10 by default and at most), `impact.go`, `trace.go`."""

_BACKTICKED = re.compile(r"`([^`]+)`")
_WORD = re.compile(r"[\w./-]+::[A-Za-z_]\w*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_INNER_CAPITAL = re.compile(r".[A-Z]")


LAYER_OF = {
    Tool.QUERY.value: "search",
    "query_question": "search",
    "query_input": "search",
    Tool.SYMBOLS.value: "identifiers",
    "symbols_identifiers": "identifiers",
    Tool.FLOW.value: "graph",
    Tool.IMPACT.value: "graph",
    Tool.TRACE.value: "graph",
}


@dataclass(frozen=True, slots=True)
class Hit:
    """What one tool call surfaced from one record (or, `record` None, one name outside the project)."""

    tool: str
    fixed: bool
    source: str
    """The record's id, or the outside name."""
    names: tuple[str, ...]
    paths: tuple[str, ...]
    record: ProjectRecord | None = None

    @property
    def layer(self) -> str:
        return LAYER_OF[self.tool]


@dataclass(frozen=True, slots=True)
class Answer:
    hits: tuple[Hit, ...]
    identifiers: tuple[str, ...]

    def upto(self, layer: str) -> list[Hit]:
        """The hits of the layers up to and including `layer`."""
        kept = LAYERS[: LAYERS.index(layer) + 1]
        return [h for h in self.hits if h.layer in kept]

    def surfaced(self, upto: str) -> tuple[list[str], list[str]]:
        """(names, paths) surfaced by the layers up to and including `upto`."""
        hits = self.upto(upto)
        return [n for h in hits for n in h.names], [p for h in hits for p in h.paths]

    def fixed(self) -> list[Hit]:
        return [h for h in self.hits if h.fixed]

    @property
    def layers(self) -> dict[str, tuple[ProjectRecord, ...]]:
        """Per layer, the records it added (each record in the first layer that reached it)."""
        seen: set[str] = set()
        layers: dict[str, tuple[ProjectRecord, ...]] = {}
        for layer in LAYERS:
            added: dict[str, ProjectRecord] = {}
            for hit in self.hits:
                if hit.layer == layer and hit.record is not None and hit.source not in seen:
                    added.setdefault(hit.source, hit.record)
            seen.update(added)
            layers[layer] = tuple(added.values())
        return layers

    @property
    def externals(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(h.source for h in self.hits if h.record is None))


def identifiers(text: str) -> list[str]:
    """Code-like names in prose, in order, each once: what a developer types as code."""
    found: dict[str, None] = {}
    for span in _BACKTICKED.findall(text):
        found.setdefault(span.strip().strip("()"), None)
    for word in _WORD.findall(_BACKTICKED.sub(" ", text)):
        word = word.rstrip(".")
        if "." in word and all(len(part) <= 1 for part in word.split(".")):
            continue  # an abbreviation (e.g, i.e), not a dotted name
        if "_" in word.strip("_") or "." in word or "::" in word or _INNER_CAPITAL.search(word):
            found.setdefault(word, None)
    return [w for w in found if w]


_NANO_SEPARATOR = re.compile(r"[^_#:/\-.0-9A-Za-z]+")
_NANO_INNER_CAPITAL = re.compile(r".[A-Z]")


def nano_brain_identifiers(texts: Sequence[str]) -> list[str]:
    """runner.go's `identifierQueries` over the question and inputs joined by spaces: terms split
    on anything but ASCII letters, digits and `_#:/-.`, trimmed of `_#:/.-`; kept when 3+
    characters long with one of `_#:/` or a capital after the first character; each once, in
    order (Go reads the input map in random order; the file's order here). The caller caps them."""
    found: dict[str, None] = {}
    for raw in _NANO_SEPARATOR.split(" ".join(texts)):
        term = raw.strip("_#:/.-")
        if len(term) >= 3 and (any(c in term for c in "_#:/") or _NANO_INNER_CAPITAL.search(term)):
            found.setdefault(term, None)
    return list(found)


class SymbolTable:
    """Name lookups and call-graph walks over a project's records."""

    def __init__(self, records: Iterable[ProjectRecord]):
        self._records = {r.id: r for r in records}
        self._symbols = [r for r in self._records.values() if r.kind is RecordKind.SYMBOL]
        self._callers: dict[str, list[str]] = defaultdict(list)
        for record in self._records.values():
            for callee in record.calls:
                self._callers[callee].append(record.id)

    def lookup(self, name: str) -> list[ProjectRecord]:
        """Symbols (or files) a name stands for: `file::name` in that file; a dotted name by its
        qualified suffix, else as a module path (`pipeline.fusion`), else by its last part; a plain
        name by its own name, else as a file stem (`memory_layer`); at the last, symbols whose
        name contains it (at most `LOOKUP_LIMIT`). Records of test files only when no other
        record answers: a name a test double also defines means the production code."""
        found = self._lookup(name)
        return [r for r in found if not is_test_path(r.path)] or found

    def _lookup(self, name: str) -> list[ProjectRecord]:
        needle = name.strip()
        if "#" in needle and "::" not in needle:
            needle = needle.replace("#", ".")  # Ruby's `Class#method`, as nano-brain's nodes name methods
        if "::" in needle:
            file, _, symbol = needle.rpartition("::")
            in_file = [s for s in self._symbols if file.lower() in s.path.lower()]
            return self._named(symbol, in_file) or self._files(lambda p: file.lower() in p.lower())
        if "." in needle:
            lowered = needle.lower()
            qualified = [s for s in self._symbols if _qualified(s) == lowered or _qualified(s).endswith("." + lowered)]
            if qualified:
                return qualified
            module = needle.replace(".", "/").lower()
            files = self._files(lambda p: str(PurePosixPath(p).with_suffix("")).lower().endswith(module))
            return files or self._lookup(needle.rsplit(".", 1)[-1])
        return (
            self._named(needle, self._symbols)
            or self._files(lambda p: PurePosixPath(p).stem.lower() == needle.lower())
            or [s for s in self._symbols if needle.lower() in _short(s)][:LOOKUP_LIMIT]
        )

    def _named(self, name: str, symbols: Sequence[ProjectRecord]) -> list[ProjectRecord]:
        lowered = name.lower()
        return [s for s in symbols if _short(s) == lowered or _qualified(s) == lowered]

    def _files(self, accept: Callable[[str], bool]) -> list[ProjectRecord]:
        return [r for r in self._records.values() if r.kind is RecordKind.FILE and accept(r.path)]

    def routes(self, entry: str) -> list[ProjectRecord]:
        """The routes an entry names: the same method (or a route for any method) and the same
        path; failing that, the routes whose path ends the entry's at a `/` (a prefix the parser
        could not see), the longest such path first."""
        method, path = split_route(entry)
        candidates = []
        for record in self._records.values():
            if record.kind is not RecordKind.ROUTE:
                continue
            route_method, route_path = split_route(record.title.split("~", 1)[0])
            if method in route_method.split("|") or "ANY" in (method, route_method):
                candidates.append((route_path, record))
        exact = [r for p, r in candidates if p == path]
        if exact:
            return exact
        tails = [(p, r) for p, r in candidates if p.startswith("/") and p != "/" and path.endswith(p)]
        longest = max((len(p) for p, _ in tails), default=0)
        return [r for p, r in tails if len(p) == longest]

    def walk(self, seeds: Sequence[ProjectRecord], depth: int, callers: bool) -> list[ProjectRecord]:
        """Breadth-first over call edges from the seeds (callees, or callers), up to `depth`
        hops; the seeds themselves first."""
        seen = {s.id for s in seeds}
        order = list(seeds)
        frontier = [s.id for s in seeds]
        for _ in range(depth):
            following: list[str] = []
            for node in frontier:
                for neighbour in self._callers[node] if callers else self._records[node].calls:
                    if neighbour not in seen:
                        seen.add(neighbour)
                        following.append(neighbour)
                        order.append(self._records[neighbour])
            frontier = following
        return order

    def fanned_out(
        self, routes: Sequence[ProjectRecord], depth: int, fanout: int
    ) -> tuple[list[ProjectRecord], list[str]]:
        """nano-brain's flow breadth: breadth-first from the routes (each route's calls all
        followed: its handlers and middleware), up to `depth` hops, each other record expanded
        through only its first `fanout` callee names (a call's last part, as nano-brain's Go
        extractor names an edge's target), in the alphabetical order its edge query returns
        (`ORDER BY target_node`; case-folded here, as an `en_US` collation sorts); (the records
        reached, the seeds first; the outside names among the calls followed, each once)."""
        seen = {r.id for r in routes}
        order, outside = list(routes), dict[str, None]()
        frontier = list(routes)
        for _ in range(depth):
            following: list[ProjectRecord] = []
            for record in frontier:
                sites: Sequence[tuple[str, tuple[str, ...]]] = record.call_sites
                if record.kind is not RecordKind.ROUTE:
                    first = set(sorted({_callee(n) for n, _ in record.call_sites}, key=_collated)[:fanout])
                    sites = [(n, targets) for n, targets in record.call_sites if _callee(n) in first]
                for name, targets in sites:
                    if not targets:
                        outside.setdefault(name, None)
                    for target in targets:
                        if target not in seen:
                            seen.add(target)
                            following.append(self._records[target])
            order.extend(following)
            frontier = following
        return order, list(outside)


def _callee(call: str) -> str:
    return call.rsplit(".", 1)[-1]


def _collated(name: str) -> tuple[str, str]:
    return name.lower(), name


def split_route(entry: str) -> tuple[str, str]:
    """(`GET`, `/items`) from `GET /items`; a bare path is (`ANY`, path)."""
    method, _, path = entry.strip().partition(" ")
    return ("ANY", method) if not path else (method.upper(), path.strip())


def _short(symbol: ProjectRecord) -> str:
    return symbol.title.split("~", 1)[0].rsplit(".", 1)[-1].lower()


def _qualified(symbol: ProjectRecord) -> str:
    return symbol.title.split("~", 1)[0].lower()


class CodeAnswerer:
    """Answers tasks from one loaded project memory, under one ruleset."""

    def __init__(self, memory: ProjectMemory, agent: AgentPass | None = None, rules: CodeTaskRules = HARNESS_RULES):
        self._memory = memory
        self._agent = agent or AgentPass()
        self._rules = rules
        self._table = SymbolTable(memory.records())

    def answer(self, task: CodeTask, mode: Mode) -> Answer:
        agent = self._agent.enabled and self._rules.agent_pass
        spelled = self._identifiers(task) if agent and "symbols_identifiers" in self._agent.tools else []
        named = [r for name in spelled for r in self._table.lookup(name)]
        tools = task.fixed_tools(self._rules.category_tools)
        looked_up = list(self._symbols_tool(task.input.query)) if Tool.SYMBOLS in tools and task.input.query else []
        hits: list[Hit] = []
        for tool in tools:
            hits.extend(self._tool(tool, task, mode, named, looked_up))
        if agent:
            for step in self._agent.tools:
                if step == "query_question":
                    hits.extend(self._search(step, task.question, mode, fixed=False))
                elif step == "query_input" and task.input.query is not None and task.input.query != task.question:
                    hits.extend(self._search(step, task.input.query, mode, fixed=False))
                elif step == "symbols_identifiers":
                    hits.extend(self._record_hit(step, False, r) for r in named)
        return Answer(tuple(hits), tuple(spelled))

    def _tool(
        self, tool: Tool, task: CodeTask, mode: Mode, named: Sequence[ProjectRecord], looked_up: Sequence[ProjectRecord]
    ) -> Iterator[Hit]:
        """One fixed tool's hits; a tool without its input surfaces nothing (nano-brain sends it
        empty), except that under the harness's rules impact and trace start from the symbols
        the identifiers and the `symbols` tool found."""
        query, depth = task.input.query, self._depth(tool, task.input.max_depth)
        if tool is Tool.QUERY and query is not None:
            yield from self._search(tool.value, query, mode, fixed=True)
        elif tool is Tool.SYMBOLS:
            yield from (self._record_hit(tool.value, True, r) for r in looked_up)
        elif tool is Tool.FLOW and task.input.entry is not None:
            routes, fanout = self._table.routes(task.input.entry), self._rules.flow_fanout
            if fanout is None:
                flow = self._table.walk(routes, depth, callers=False)
                outside = self._outside(tool.value, flow)
            else:
                flow, names = self._table.fanned_out(routes, depth, fanout)
                outside = (Hit(tool.value, True, name, (name,), ()) for name in names)
            for record in flow:
                yield Hit(tool.value, True, record.id, (record.title,), self._flow_paths(record), record)
            yield from outside
        elif tool in (Tool.IMPACT, Tool.TRACE):
            node = task.input.node
            if node is not None:
                seeds = self._table.lookup(node)
            elif self._rules.category_tools:
                seeds = list({r.id: r for r in (*named, *looked_up) if r.kind is RecordKind.SYMBOL}.values())
            else:
                return
            walked = self._table.walk(seeds, depth, callers=tool is Tool.IMPACT)
            yield from (self._record_hit(tool.value, True, r) for r in walked)
            if tool is Tool.TRACE and self._rules.trace_externals:
                yield from self._outside(tool.value, walked)

    def _depth(self, tool: Tool, asked: int | None) -> int:
        """The hops a graph tool walks: the task's `max_depth` (else nano-brain's runner's
        default), under nano-brain's rules as its server's handlers grant it."""
        depth = asked or (FLOW_DEPTH if tool is Tool.FLOW else GRAPH_DEPTH)
        if not self._rules.server_depths or tool not in SERVER_DEPTHS:
            return depth
        most, otherwise = SERVER_DEPTHS[tool]
        return depth if depth <= most else otherwise

    def _search(self, tool: str, text: str, mode: Mode, *, fixed: bool) -> Iterator[Hit]:
        for found in self._memory.search(text, mode, SEARCH_LIMIT):
            record = found.record
            names = (record.title, record.text) if self._rules.snippet_names else (record.title,)
            yield Hit(tool, fixed, record.id, names, (record.path,), record)

    @staticmethod
    def _record_hit(tool: str, fixed: bool, record: ProjectRecord) -> Hit:
        return Hit(tool, fixed, record.id, (record.title,), (record.path,), record)

    def _flow_paths(self, record: ProjectRecord) -> tuple[str, ...]:
        return (record.path,) if self._rules.flow_paths else ()

    @staticmethod
    def _outside(tool: str, records: Iterable[ProjectRecord]) -> Iterator[Hit]:
        """The names the records call outside the project, each once."""
        seen: set[str] = set()
        for record in records:
            for name in record.external_calls:
                if name not in seen:
                    seen.add(name)
                    yield Hit(tool, True, name, (name,), ())

    def _identifiers(self, task: CodeTask) -> list[str]:
        """The names to look up; a dataset that gives no cap (nano-brain: or one of 0) gets the
        ruleset's default."""
        limit = self._agent.max_symbol_queries
        if self._rules.identifiers is IdentifierPass.NANO_BRAIN:
            spelled = nano_brain_identifiers([task.question, *task.input.texts()])
            limit = limit or self._rules.default_symbol_queries
        else:
            texts = [task.question, task.input.query or "", task.input.node or ""]
            spelled = list(dict.fromkeys(name for text in texts for name in identifiers(text)))
            limit = limit if limit is not None else self._rules.default_symbol_queries
        return spelled[:limit] if limit is not None else spelled

    def _symbols_tool(self, query: str) -> Iterator[ProjectRecord]:
        """The `symbols` tool: the whole query as a name, else each of its words of 3+ letters."""
        found = self._table.lookup(query)
        if found:
            yield from found[:LOOKUP_LIMIT]
            return
        words = re.findall(r"[A-Za-z0-9_]{3,}", query)
        yield from [r for w in words for r in self._table.lookup(w)][:LOOKUP_LIMIT]
