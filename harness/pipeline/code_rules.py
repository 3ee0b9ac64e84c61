"""Code-task rulesets: how a task's answer is gathered and read, one named settings object each.

A code-task file is judged by its source's rules, so that a recall means what it means upstream.
`nano-brain-1` and `nano-brain-2` are nano-brain's capability runners as their code implements
them (`benchmarks/*/capability/runner.go`): version 1 calls the task's own tools and nothing
else; version 2 (the rails, typescript and vue runners, and the capability README from the
commit whose dataset carries an `agent` block) adds the dataset's agent pass and reads each
search result's snippet. `harness` is this harness's stricter reading: only names count as
names, a flow surfaces its files, a task naming no tools uses its category's tool, and its own
identifier pass. Only the rules that differ are fields; everything else is one answerer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class IdentifierPass(StrEnum):
    NANO_BRAIN = "nano-brain"
    """runner.go's `identifierQueries`: the question and every string input, split on anything but
    letters, digits and `_#:/-.`, trimmed of `_#:/.-`; a term of 3+ characters with one of `_#:/`
    or a capital after its first character."""
    HARNESS = "harness"
    """`code_answer.identifiers`: backticked spans, camelCase, snake_case, dotted and `file::name` names."""


@dataclass(frozen=True)
class CodeTaskRules:
    name: str
    agent_pass: bool
    """Whether the dataset's `agent` block runs (its tools in order) beside the task's own tools."""
    snippet_names: bool
    """A search result's text counts among the names symbols match (runner.go's `callQuery` adds
    each result's snippet as a name), not only its title."""
    flow_paths: bool
    """A flow's records surface their files (nano-brain's `callFlow` adds chain names only)."""
    trace_externals: bool
    """A trace also surfaces the calls its records make outside the project (nano-brain's call
    edges end in bare callee names: `map`, `post`); else only a flow lists them."""
    category_tools: bool
    """A task that names no tools uses its category's tool (nano-brain calls only `tools`)."""
    identifiers: IdentifierPass
    default_symbol_queries: int | None
    """Identifier lookups when the agent block gives no `max_symbol_queries` (runner.go: 8)."""
    server_depths: bool
    """A graph tool walks the depth nano-brain's server grants for the one asked: impact 1 to 3
    (any other: 1), trace 1 to 10 (any other: 5), flow at most 10 (its `flow.max_depth`); else
    the depth asked."""
    flow_fanout: int | None
    """A flow follows only the first this many distinct calls of each function it expands, and
    lists only those of them that leave the project (nano-brain's `BuildFlow` with its server's
    `flow.max_fanout`, 8 by default, which the capability `setup.sh` keeps); None: every call."""

    def to_json(self) -> dict[str, Any]:
        return {k: (v.value if isinstance(v, StrEnum) else v) for k, v in asdict(self).items()}


HARNESS_RULES = CodeTaskRules(
    name="harness",
    agent_pass=True,
    snippet_names=False,
    flow_paths=True,
    trace_externals=False,
    category_tools=True,
    identifiers=IdentifierPass.HARNESS,
    default_symbol_queries=None,
    server_depths=False,
    flow_fanout=None,
)

NANO_BRAIN_2_RULES = CodeTaskRules(
    name="nano-brain-2",
    agent_pass=True,
    snippet_names=True,
    flow_paths=False,
    trace_externals=True,
    category_tools=False,
    identifiers=IdentifierPass.NANO_BRAIN,
    default_symbol_queries=8,
    server_depths=True,
    flow_fanout=8,
)

NANO_BRAIN_1_RULES = CodeTaskRules(
    **{**asdict(NANO_BRAIN_2_RULES), "name": "nano-brain-1", "agent_pass": False, "snippet_names": False}
)

CODE_RULESETS: Mapping[str, CodeTaskRules] = MappingProxyType(
    {r.name: r for r in (HARNESS_RULES, NANO_BRAIN_1_RULES, NANO_BRAIN_2_RULES)}
)


def code_rules(name: str) -> CodeTaskRules:
    try:
        return CODE_RULESETS[name]
    except KeyError:
        raise ValueError(f"unknown code-task ruleset {name!r} (known: {', '.join(CODE_RULESETS)})") from None
