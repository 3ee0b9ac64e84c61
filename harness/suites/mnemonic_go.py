"""Mnemonic's direct scenarios as it publishes them: `cmd/benchmark-quality/scenarios.go`, read
without Go. The file builds each scenario in a function of one shape (signal memories as
`store.Memory` literals, noise from a `noiseContents` table in a loop, associations, queries,
`return scenario{Name: ...}`); this reads exactly that shape and the arithmetic it uses
(`0.3 + float32(i%3)*0.05`, `now.Add(-90 * time.Minute)`), and refuses anything else in one line
rather than guess. Embeddings are not read (the benchmark recomputes them; the run's model embeds),
and the raw-event scenarios of `pipeline_scenarios.go` are not read from Go (their generator
builds events in code): convert those to the JSON format.
"""

from __future__ import annotations

import ast
import json
import operator
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.errors import CaseFileError
from harness.suites.jsonfile import read_text

_STRING = r'"(?:[^"\\]|\\.)*"'
_FUNCS = re.compile(r"func allScenarios\(\) \[\]scenario \{(.*?)\n\}", re.S)
_CALL = re.compile(r"(\w+)\(\),")
_MEMORY = re.compile(r'\{Label: "(signal|noise|duplicate)", Memory: store\.Memory\{(.*?)\}\},', re.S)
_TABLE = re.compile(r"noiseContents := \[\]struct\s*\{[^}]*\}\{(.*?)\n\t\}\n", re.S)
_ROW = re.compile(rf"\{{({_STRING}),\s*({_STRING})(?:,\s*([0-9.]+))?\}}")
_LOOP = re.compile(r'noise\[i\] = labeledMemory\{\s*Label: "noise",\s*Memory: store\.Memory\{(.*?)\n\t\t\t\},', re.S)
_ASSOCIATION = re.compile(
    rf"\{{SourceID: ({_STRING}), TargetID: ({_STRING}), Strength: ([0-9.]+), RelationType: ({_STRING})"
    r"[^}]*?ActivationCount: (\d+)\}"
)
_QUERY = re.compile(rf"\{{\s*Query:\s*({_STRING}),\s*ExpectedIDs:\s*\[\]string\{{([^}}]*)\}},?\s*\}}", re.S)
_NAME = re.compile(rf"return scenario\{{\s*Name:\s*({_STRING})")
_OPERATORS: Mapping[type, Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
    ast.USub: operator.neg,
}


def _string(literal: str) -> str:
    """A Go interpreted string literal (its escapes are JSON's for the text these files hold)."""
    return str(json.loads(literal))


def _strings(body: str) -> list[str]:
    return [_string(s) for s in re.findall(_STRING, body)]


def _number(expression: str, i: int | None = None, row_salience: float | None = None) -> float:
    """Go arithmetic over numbers, `i`, `nc.salience`, `float32(...)`, `time.Duration(...)`,
    `time.Hour` and `time.Minute` (in minutes)."""
    text = (
        expression.replace("float32(", "(")
        .replace("time.Duration(", "(")
        .replace("time.Hour", "60")
        .replace("time.Minute", "1")
        .replace("nc.salience", "salience")
    )
    names = {"i": i, "salience": row_salience}

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name) and names.get(node.id) is not None:
            return float(names[node.id])  # type: ignore[arg-type]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return float(_OPERATORS[type(node.op)](value(node.left), value(node.right)))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return float(_OPERATORS[type(node.op)](value(node.operand)))
        raise ValueError(f"not arithmetic this reader knows: {expression.strip()!r}")

    return value(ast.parse(text.strip(), mode="eval").body)


def _age(fields: Mapping[str, str], **names: Any) -> float:
    """Minutes before the run's clock: `CreatedAt: now.Add(<minutes>)`, negated (`now` is 0)."""
    created = fields.get("CreatedAt", "now").strip()
    if created == "now":
        return 0.0
    match = re.fullmatch(r"now\.Add\((.*)\)", created)
    if not match:
        raise ValueError(f"CreatedAt {created!r} is not now.Add(...)")
    return max(0.0, -_number(match[1], **names))


def _memory(label: str, fields: Mapping[str, str], **names: Any) -> dict[str, Any]:
    concepts = fields.get("Concepts", "[]string{}")
    return {
        "label": label,
        "summary": _string(fields["Summary"]),
        "content": _string(fields["Content"]) if fields.get("Content", "").startswith('"') else "",
        "concepts": _strings(concepts),
        "salience": round(_number(fields["Salience"], **names), 6),
        "state": _string(fields.get("State", '"active"')),
        "age_minutes": _age(fields, **names),
    }


def _code(body: str) -> str:
    """The body without `//` line comments (a `//` inside a string literal stays)."""
    out, quoted, escaped, position = [], False, False, 0
    while position < len(body):
        char = body[position]
        if quoted:
            quoted, escaped = (char != '"' or escaped), (char == "\\" and not escaped)
        elif char == '"':
            quoted = True
        elif body.startswith("//", position):
            position = body.find("\n", position)
            position = len(body) if position < 0 else position
            continue
        out.append(char)
        position += 1
    return "".join(out)


def _fields(body: str) -> dict[str, str]:
    """`Key: value` pairs of a composite literal's body, split at its top-level commas (commas
    inside strings, calls and nested literals belong to their value)."""
    code = _code(body)
    parts, depth, start, quoted, escaped = [], 0, 0, False, False
    for position, char in enumerate(code):
        if quoted:
            quoted, escaped = (char != '"' or escaped), (char == "\\" and not escaped)
        elif char == '"':
            quoted = True
        elif char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(code[start:position])
            start = position + 1
    parts.append(code[start:])
    pairs = (part.strip().split(":", 1) for part in parts if ":" in part)
    return {key.strip(): value.strip() for key, value in pairs if key.strip().isidentifier()}


def _scenario(function: str, body: str) -> dict[str, Any]:
    memories = []
    for label, literal in _MEMORY.findall(body):
        fields = _fields(literal)
        memories.append({"id": _string(fields["ID"]), **_memory(label, fields)})
    table, loop = _TABLE.search(body), _LOOP.search(body)
    if bool(table) != bool(loop):
        raise ValueError("a noiseContents table without its loop, or the other way round")
    if table and loop:
        fields = _fields(loop[1])
        identifier = re.fullmatch(rf"fmt\.Sprintf\(({_STRING}), i\+1\)", fields["ID"])
        if not identifier:
            raise ValueError(f'noise ID {fields["ID"]!r} is not fmt.Sprintf("...%d", i+1)')
        for i, (summary, content, salience) in enumerate(_ROW.findall(table[1])):
            row = {**fields, "Summary": summary, "Content": content}
            names = {"i": i, "row_salience": float(salience) if salience else None}
            memories.append({"id": _string(identifier[1]) % (i + 1), **_memory("noise", row, **names)})
    associations = [
        {
            "source_id": _string(source),
            "target_id": _string(target),
            "strength": float(strength),
            "relation_type": _string(relation),
            "activation_count": int(count),
        }
        for source, target, strength, relation, count in _ASSOCIATION.findall(body)
    ]
    queries = [{"query": _string(q), "expected_ids": _strings(ids)} for q, ids in _QUERY.findall(body)]
    name = _NAME.search(body)
    if not (name and memories and queries):
        raise ValueError("no `return scenario{Name: ...}`, memories or queries in the shape this reader knows")
    return {
        "func": function,
        "name": _string(name[1]),
        "memories": memories,
        "associations": associations,
        "queries": queries,
    }


def read_scenarios_go(path: Path) -> dict[str, Any]:
    """The file as a Mnemonic-format JSON document (`{source, retrieval, scenarios}`), the
    scenarios in `allScenarios()` order."""
    text = read_text(path, "Go source")
    listed = _FUNCS.search(text)
    if not listed:
        raise CaseFileError(path, "no `func allScenarios() []scenario {...}`: not Mnemonic's scenarios.go")
    scenarios = []
    for function in _CALL.findall(listed[1]):
        body = re.search(rf"\nfunc {function}\(\) scenario \{{(.*?)\n\}}\n", text, re.S)
        if not body:
            raise CaseFileError(path, f"{function}() is called by allScenarios() but not defined here")
        try:
            scenarios.append(_scenario(function, body[1]))
        except (ValueError, KeyError) as exc:
            raise CaseFileError(path, f"{function}(): {exc}") from None
    return {
        "source": f"{path.name} (Mnemonic's Go source)",
        "retrieval": {"max_results": 5, "k": 5},
        "scenarios": scenarios,
    }
