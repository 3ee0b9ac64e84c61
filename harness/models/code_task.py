"""Code-intelligence tasks: a developer question over a code base and the symbols and files a
correct answer must surface (the shape nano-brain's capability benchmark uses, and ours).

A task's tools are the fixed lookups it asks for beside the question: `flow` (from an HTTP
entry down its call chain), `impact` (callers of a node), `trace` (callees of a node), `symbols`
(a name lookup of the explicit query) and `query` (a search of the explicit query). A task that
names none gets its category's tool.
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

FLOW_DEPTH = 8
GRAPH_DEPTH = 4
"""Hops a flow follows, and an impact or trace, when the task gives no `max_depth` (nano-brain's defaults)."""


class TaskInput(BaseModel):
    """The explicit inputs of a task's tools."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entry: str | None = Field(default=None, min_length=1)
    """An HTTP route, `METHOD /path` (a bare path: any method)."""
    node: str | None = Field(default=None, min_length=1)
    """A symbol name, possibly qualified by its file: `path/file.go::Func`."""
    max_depth: int | None = Field(default=None, ge=1, le=64)
    query: str | None = Field(default=None, min_length=1)


class CodeTask(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=255)
    category: TaskCategory
    question: str = Field(min_length=1)
    tools: tuple[Tool, ...] = ()
    input: TaskInput = TaskInput()
    expect_symbols: tuple[str, ...] = ()
    expect_files: tuple[str, ...] = ()
    notes: str | None = None

    @model_validator(mode="after")
    def _tools_have_inputs(self) -> CodeTask:
        tools = self.fixed_tools
        if self.category is TaskCategory.MULTI_TOOL and not self.tools:
            raise ValueError("a multi-tool task names its tools")
        if Tool.FLOW in tools and self.input.entry is None:
            raise ValueError("the flow tool needs input.entry")
        if (Tool.IMPACT in tools or Tool.TRACE in tools) and self.input.node is None:
            raise ValueError("the impact and trace tools need input.node")
        if (Tool.SYMBOLS in tools or Tool.QUERY in tools) and self.input.query is None:
            raise ValueError("the symbols and query tools need input.query")
        if any(not item.strip() for item in (*self.expect_symbols, *self.expect_files)):
            raise ValueError("an expected symbol or file is empty (it would match anything)")
        return self

    @property
    def fixed_tools(self) -> tuple[Tool, ...]:
        return self.tools or CATEGORY_TOOLS[self.category]

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


class AgentPass(BaseModel):
    """Whether the deterministic agent pass runs beside the fixed tools (search the question,
    search the explicit query, look up identifiers), and how many identifiers it looks up."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    enabled: bool = True
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

    @model_validator(mode="after")
    def _unique_ids(self) -> TaskSet:
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"task id {task.id!r} appears twice")
            seen.add(task.id)
        return self
