"""Python files by symbol, with the standard library's `ast`: classes, functions and methods,
their docstrings and the names they call."""

from __future__ import annotations

import ast

from harness.models.project import RecordKind
from harness.suites.projects.parsed import ParsedFile, Piece
from harness.suites.projects.routes import registers_routes, route_title

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def parse(source: str) -> ParsedFile:
    """Every class and function (nested ones qualified by their enclosing names); a file that is
    not valid Python is a `SyntaxError`, which the ingester reports as a skip."""
    tree = ast.parse(source)
    lines = source.splitlines()
    pieces: list[Piece] = []
    _collect(tree.body, None, lines, pieces)
    return ParsedFile(language="python", pieces=tuple(pieces), doc=ast.get_docstring(tree) or "")


def _collect(body: list[ast.stmt], parent: str | None, lines: list[str], pieces: list[Piece]) -> None:
    for node in body:
        if not isinstance(node, _Definition):
            continue
        name = f"{parent}.{node.name}" if parent else node.name
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        source = "\n".join(lines[first - 1 : node.end_lineno])
        if isinstance(node, ast.ClassDef):
            # a class's own text is its header, docstring and attributes: its methods are records of their own
            text = "\n".join(_class_outline(node, lines))
            calls: tuple[str, ...] = ()
        else:
            text = source
            calls = tuple(_calls(node.body))
        pieces.append(
            Piece(
                kind=RecordKind.SYMBOL,
                name=name,
                title=name,
                text=text,
                line=node.lineno,
                parent=parent,
                calls=calls,
                doc=ast.get_docstring(node) or "",
                signature=lines[node.lineno - 1].strip(),
            )
        )
        pieces.extend(_routes(node, name))
        _collect(node.body, name, lines, pieces)


def _class_outline(node: ast.ClassDef, lines: list[str]) -> list[str]:
    """Decorators and header, then each statement of the body that is not a definition."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    outline = lines[first - 1 : node.body[0].lineno - 1]
    for statement in node.body:
        if isinstance(statement, _Definition):
            outline.append(lines[statement.lineno - 1])
        else:
            outline.extend(lines[statement.lineno - 1 : statement.end_lineno])
    return outline


def _calls(body: list[ast.stmt]) -> list[str]:
    """Called names in source order, first occurrence only, without descending into nested
    definitions (they are symbols of their own, with their own calls)."""
    found: dict[str, None] = {}
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, _Definition):
            continue
        if isinstance(node, ast.Call) and (name := _dotted(node.func)):
            found.setdefault(name, None)
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return list(found)


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of names and attributes; `.c` when the chain starts with a call or subscript."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif not parts:
        return None
    else:
        parts.append("")
    return ".".join(reversed(parts))


def _routes(node: _Definition, name: str) -> list[Piece]:
    """Routes a decorator registers (`@app.get("/items")`, `@bp.route("/items", methods=["POST"])`)."""
    found: list[Piece] = []
    for decorator in getattr(node, "decorator_list", ()):
        if not isinstance(decorator, ast.Call) or not decorator.args:
            continue
        callee, path = _dotted(decorator.func), decorator.args[0]
        if callee is None or not registers_routes(callee):
            continue
        if not isinstance(path, ast.Constant) or not isinstance(path.value, str):
            continue
        methods = next(
            (
                tuple(e.value for e in k.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
                for k in decorator.keywords
                if k.arg == "methods" and isinstance(k.value, ast.List | ast.Tuple)
            ),
            (),
        )
        title = route_title(callee, path.value, methods)
        if title is not None:
            found.append(
                Piece(
                    kind=RecordKind.ROUTE,
                    name=title,
                    title=title,
                    text=ast.unparse(decorator),
                    line=decorator.lineno,
                    parent=name,
                    calls=(name.rsplit(".", 1)[-1],),
                    signature=f"@{ast.unparse(decorator)}",
                )
            )
    return found
