"""Code-intelligence tasks: a developer question over a code base and the symbols and files a
correct answer must surface (the shape nano-brain's capability benchmark uses, and ours).

A task's tools are the fixed lookups it asks for beside the question: `flow` (from an HTTP
entry down its call chain), `impact` (callers of a node), `trace` (callees of a node), `symbols`
(a name lookup of the explicit query) and `query` (a search of the explicit query). Under the
harness's rules a task that names none gets its category's tool; nano-brain calls only those named.
Categories are free text, as nano-brain's runner reads them (rails: `support-root-cause`,
`state-transition`; vue: `graph-out`); a tool without its input is loaded (nano-brain sends it
empty) and `gaps()` says what it lacks.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, model_validator


class TaskCategory(StrEnum):
    FLOW = "flow"
    IMPACT = "impact"
    TRACE = "trace"
    SYMBOL_LOOKUP = "symbol-lookup"
    SEARCH_QA = "search-qa"
    MULTI_TOOL = "multi-tool"


class Tool(StrEnum):
    FLOW = "flow"
    IMPACT = "impact"
    TRACE = "trace"
    SYMBOLS = "symbols"
    QUERY = "query"


CATEGORY_TOOLS = {
    TaskCategory.FLOW: (Tool.FLOW,),
    TaskCategory.IMPACT: (Tool.IMPACT,),
    TaskCategory.TRACE: (Tool.TRACE,),
    TaskCategory.SYMBOL_LOOKUP: (Tool.SYMBOLS,),
    TaskCategory.SEARCH_QA: (Tool.QUERY,),
    TaskCategory.MULTI_TOOL: (),
}
"""The tool a task of each category uses when it names none (a multi-tool task must name them)."""

_CATEGORIES = frozenset(c.value for c in TaskCategory)

FLOW_DEPTH = 8
GRAPH_DEPTH = 4
"""Hops a flow follows, and an impact or trace, when the task gives no `max_depth` (nano-brain's defaults)."""


class TaskInput(BaseModel):
    """The explicit inputs of a task's tools. Other keys are kept (`extras`): nano-brain's runner
    reads an input as a map, and its identifier pass reads every string value in it."""

    model_config = ConfigDict(extra="allow", frozen=True)

    entry: str | None = Field(default=None, min_length=1)
    """An HTTP route, `METHOD /path` (a bare path: any method)."""
    node: str | None = Field(default=None, min_length=1)
    """A symbol name, possibly qualified by its file: `path/file.go::Func`."""
    max_depth: int | None = Field(default=None, ge=1, le=64)
    query: str | None = Field(default=None, min_length=1)

    @property
    def extras(self) -> dict[str, object]:
        return dict(self.model_extra or {})

    def texts(self) -> list[str]:
        """Every string value, in the file's order (what nano-brain's identifier pass reads)."""
        return [v for v in self.model_dump(exclude_none=True).values() if isinstance(v, str)]


class CodeTask(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=255)
    category: str = Field(min_length=1, max_length=255)
    question: str = Field(min_length=1)
    tools: tuple[Tool, ...] = ()
    input: TaskInput = TaskInput()
    expect_symbols: tuple[str, ...] = ()
    expect_files: tuple[str, ...] = ()
    notes: str | None = None

    @model_validator(mode="after")
    def _expectations_are_not_empty(self) -> CodeTask:
        if any(not item.strip() for item in (*self.expect_symbols, *self.expect_files)):
            raise ValueError("an expected symbol or file is empty (it would match anything)")
        return self

    def fixed_tools(self, category_tools: bool = True) -> tuple[Tool, ...]:
        """The tools named, else (with `category_tools`) the known category's tool."""
        if self.tools or not category_tools:
            return self.tools
        return CATEGORY_TOOLS.get(TaskCategory(self.category), ()) if self.category in _CATEGORIES else ()

    def gaps(self, category_tools: bool = True) -> list[str]:
        """What the task's tools lack, each as a line: a tool without its input surfaces nothing
        (nano-brain's runner sends it empty), but for impact and trace under the harness's rules
        (`category_tools`), which start from the symbols the identifiers find."""
        tools = self.fixed_tools(category_tools)
        lines = [] if tools else ["names no tools: only the agent pass answers it"]
        needs = {
            Tool.FLOW: "entry",
            Tool.IMPACT: "node",
            Tool.TRACE: "node",
            Tool.SYMBOLS: "query",
            Tool.QUERY: "query",
        }
        for tool in tools:
            if getattr(self.input, needs[tool]) is None:
                seeded = category_tools and tool in (Tool.IMPACT, Tool.TRACE)
                then = "it starts from the symbols the identifiers find" if seeded else "it surfaces nothing"
                lines.append(f"the {tool} tool has no input.{needs[tool]}: {then}")
        return lines

    @property
    def expected(self) -> int:
        return len(self.expect_symbols) + len(self.expect_files)


class TaskBaseline(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    category: str
    recall: FiniteFloat
    matched: list[str] | None = None
    missed: list[str] | None = None


class Baseline(BaseModel):
    """A frozen earlier run in nano-brain's baseline format; a run regresses when its overall
    recall falls more than `REGRESSION_MARGIN` under this one's. Numbers are finite: a NaN would
    make every comparison false, and so disable the gate."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    version: str | int
    overall: FiniteFloat
    by_category: dict[str, FiniteFloat] = Field(default_factory=dict)
    tasks: list[TaskBaseline] = Field(default_factory=list)


REGRESSION_MARGIN = 0.001


AGENT_TOOLS = ("query_question", "query_input", "symbols_identifiers")
"""The agent steps nano-brain's runner knows: search the question, search `input.query`, look up
the identifiers of the question and inputs."""


class AgentPass(BaseModel):
    """Whether the deterministic agent pass runs beside the fixed tools (search the question,
    search the explicit query, look up identifiers), and how many identifiers it looks up."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    enabled: bool = True
    tools: tuple[str, ...] = AGENT_TOOLS
    """The agent pass's steps, in order; nano-brain's runner ignores a name it does not know."""
    max_symbol_queries: int | None = Field(default=None, ge=0)


class TaskSet(BaseModel):
    """Tasks over one code base, with the baseline they are compared to (if any)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    codebase: Path
    exclude: tuple[str, ...] = ()
    """Paths below the code base that are not its code (packaged data beside the package)."""
    tasks: tuple[CodeTask, ...]
    agent: AgentPass = AgentPass()
    baseline: Baseline | None = None
    source: str
    """Where the tasks came from (a file path), for reports and errors."""
    rules: str = "harness"
    """The code-task ruleset that judges the set (`pipeline.code_rules`)."""
    warnings: tuple[str, ...] = ()
    """One line per field or tool input the importer cannot judge, and why."""

    @model_validator(mode="after")
    def _unique_ids(self) -> TaskSet:
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"task id {task.id!r} appears twice")
            seen.add(task.id)
        return self
