"""The deterministic answerer of code tasks: what project memory surfaces for a task, in three
cumulative layers, without ever reading the expected answers.

1. search: the question, then the explicit query (`input.query`), each searched in the run's
   mode (the top `SEARCH_LIMIT` records each).
2. identifiers: the names the question and inputs spell as code (camelCase, PascalCase with an
   inner capital, snake_case, dotted names, `file::name`, anything in backticks), each looked
   up in the symbol table; with the `symbols` tool, the explicit query looked up as a name too.
3. graph: the fixed graph tools over the parsers' call edges: `flow` follows callees from the
   route `input.entry` names (and lists what its steps call outside the project, as nano-brain's
   flow does), `impact` follows callers and `trace` callees of `input.node` (or, without one, of
   the symbols the identifiers found), each up to `max_depth` hops.

Each layer adds records; a record surfaces its title as a name and its path as a path (what the
scoring matches expected symbols and files against).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from harness.models.code_task import FLOW_DEPTH, GRAPH_DEPTH, AgentPass, CodeTask, Tool
from harness.models.project import ProjectRecord, RecordKind
from harness.pipeline.project_memory import ProjectMemory
from harness.pipeline.settings import Mode

SEARCH_LIMIT = 20
"""Records each search contributes (nano-brain's query and symbols limit)."""
LOOKUP_LIMIT = 20
"""Symbols a name lookup that matches no name exactly may return (by substring)."""
LAYERS = ("search", "identifiers", "graph")

_BACKTICKED = re.compile(r"`([^`]+)`")
_WORD = re.compile(r"[\w./-]+::[A-Za-z_]\w*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_INNER_CAPITAL = re.compile(r".[A-Z]")


@dataclass
class Layer:
    """The records one layer surfaced, in the order found, each once."""

    records: dict[str, ProjectRecord] = field(default_factory=dict)

    def add(self, records: Iterable[ProjectRecord]) -> None:
        for record in records:
            self.records.setdefault(record.id, record)


@dataclass(frozen=True, slots=True)
class Answer:
    layers: dict[str, tuple[ProjectRecord, ...]]
    """Per layer (`LAYERS`), the records it added."""
    identifiers: tuple[str, ...]
    externals: tuple[str, ...] = ()
    """What a flow calls outside the project (names only, as nano-brain's flow lists them); graph layer."""

    def surfaced(self, upto: str) -> tuple[list[str], list[str]]:
        """(names, paths) surfaced by the layers up to and including `upto`."""
        names: list[str] = []
        paths: list[str] = []
        for layer in LAYERS[: LAYERS.index(upto) + 1]:
            for record in self.layers[layer]:
                names.append(record.title)
                paths.append(record.path)
        if upto == "graph":
            names.extend(self.externals)
        return names, paths


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
        name contains it (at most `LOOKUP_LIMIT`)."""
        needle = name.strip()
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
            return files or self.lookup(needle.rsplit(".", 1)[-1])
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


def split_route(entry: str) -> tuple[str, str]:
    """(`GET`, `/items`) from `GET /items`; a bare path is (`ANY`, path)."""
    method, _, path = entry.strip().partition(" ")
    return ("ANY", method) if not path else (method.upper(), path.strip())


def _short(symbol: ProjectRecord) -> str:
    return symbol.title.split("~", 1)[0].rsplit(".", 1)[-1].lower()


def _qualified(symbol: ProjectRecord) -> str:
    return symbol.title.split("~", 1)[0].lower()


class CodeAnswerer:
    """Answers tasks from one loaded project memory."""

    def __init__(self, memory: ProjectMemory, agent: AgentPass | None = None):
        self._memory = memory
        self._agent = agent or AgentPass()
        self._table = SymbolTable(memory.records())

    def answer(self, task: CodeTask, mode: Mode) -> Answer:
        tools = task.fixed_tools
        search, named, graph = Layer(), Layer(), Layer()
        if self._agent.enabled:
            search.add(f.record for f in self._memory.search(task.question, mode, SEARCH_LIMIT))
        if task.input.query is not None and (self._agent.enabled or Tool.QUERY in tools):
            search.add(f.record for f in self._memory.search(task.input.query, mode, SEARCH_LIMIT))

        spelled = self._identifiers(task) if self._agent.enabled else []
        found: list[ProjectRecord] = [r for name in spelled for r in self._table.lookup(name)]
        if Tool.SYMBOLS in tools and task.input.query is not None:
            found.extend(self._symbols_tool(task.input.query))
        named.add(found)

        depth = task.input.max_depth
        externals: dict[str, None] = {}
        if Tool.FLOW in tools and task.input.entry is not None:
            flow = self._table.walk(self._table.routes(task.input.entry), depth or FLOW_DEPTH, callers=False)
            graph.add(flow)
            externals.update((name, None) for record in flow for name in record.external_calls)
        if Tool.IMPACT in tools or Tool.TRACE in tools:
            seeds = self._table.lookup(task.input.node) if task.input.node else self._symbols(named)
            if Tool.IMPACT in tools:
                graph.add(self._table.walk(seeds, depth or GRAPH_DEPTH, callers=True))
            if Tool.TRACE in tools:
                graph.add(self._table.walk(seeds, depth or GRAPH_DEPTH, callers=False))

        layers: dict[str, tuple[ProjectRecord, ...]] = {}
        seen: set[str] = set()
        for layer_name, layer in zip(LAYERS, (search, named, graph), strict=True):
            layers[layer_name] = tuple(r for i, r in layer.records.items() if i not in seen)
            seen.update(layer.records)
        return Answer(layers, tuple(spelled), tuple(externals))

    def _identifiers(self, task: CodeTask) -> list[str]:
        texts = [task.question, task.input.query or "", task.input.node or ""]
        spelled = list(dict.fromkeys(name for text in texts for name in identifiers(text)))
        if self._agent.max_symbol_queries is not None:
            spelled = spelled[: self._agent.max_symbol_queries]
        return spelled

    def _symbols_tool(self, query: str) -> Iterator[ProjectRecord]:
        """The `symbols` tool: the whole query as a name, else each of its words of 3+ letters."""
        found = self._table.lookup(query)
        if found:
            yield from found[:LOOKUP_LIMIT]
            return
        words = re.findall(r"[A-Za-z0-9_]{3,}", query)
        yield from [r for w in words for r in self._table.lookup(w)][:LOOKUP_LIMIT]

    @staticmethod
    def _symbols(layer: Layer) -> list[ProjectRecord]:
        return [r for r in layer.records.values() if r.kind is RecordKind.SYMBOL]
