"""Go, TypeScript and JavaScript files by symbol, through the tree-sitter grammars' wheels:
functions, methods, classes and types, their leading comments, the names they call, and the HTTP
routes they register (`app.get("/items", list)`, `mux.HandleFunc("GET /items", h.list)`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache

import tree_sitter_go
import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

from harness.models.project import RecordKind
from harness.suites.projects.parsed import ParsedFile, Piece
from harness.suites.projects.routes import registers_routes, route_title


@dataclass(frozen=True, slots=True)
class _Grammar:
    name: str
    language: Callable[[], object]
    functions: frozenset[str]
    """Node types that define a function or method with a `name` field and a `body`."""
    containers: frozenset[str]
    """Node types that define a class or type whose members are symbols of their own."""
    types: frozenset[str]
    """Node types that define a named type without a body of calls."""
    calls: frozenset[str]
    strings: frozenset[str]


_JS_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "method_definition"})
_JS_CALLS = frozenset({"call_expression", "new_expression"})


def _typescript(name: str, language: Callable[[], object]) -> _Grammar:
    """TypeScript and TSX: one grammar family, two languages."""
    return _Grammar(
        name,
        language,
        _JS_FUNCTIONS,
        frozenset({"class_declaration", "abstract_class_declaration"}),
        frozenset({"interface_declaration", "type_alias_declaration", "enum_declaration"}),
        _JS_CALLS,
        frozenset({"string", "template_string"}),
    )


_GRAMMARS = {
    "go": _Grammar(
        "go",
        tree_sitter_go.language,
        frozenset({"function_declaration", "method_declaration"}),
        frozenset(),
        frozenset({"type_spec"}),
        frozenset({"call_expression"}),
        frozenset({"interpreted_string_literal", "raw_string_literal"}),
    ),
    "typescript": _typescript("typescript", tree_sitter_typescript.language_typescript),
    "tsx": _typescript("tsx", tree_sitter_typescript.language_tsx),
    "javascript": _Grammar(
        "javascript",
        tree_sitter_javascript.language,
        _JS_FUNCTIONS,
        frozenset({"class_declaration"}),
        frozenset(),
        _JS_CALLS,
        frozenset({"string", "template_string"}),
    ),
}


@cache
def _parser(language: str) -> Parser:
    return Parser(Language(_GRAMMARS[language].language()))


def parse(source: str, language: str) -> ParsedFile:
    """Symbols, routes and the module comment of one file in `language` (go, typescript, tsx, javascript).
    Tree-sitter recovers from syntax errors, so a broken file still gives what parses."""
    grammar = _GRAMMARS[language]
    data = source.encode("utf-8")
    root = _parser(language).parse(data).root_node
    walker = _Walker(grammar, data)
    walker.visit(root, None)
    walker.routes(root)  # routes registered outside any function
    # a Go method names its receiver type as parent; the type may live in another file of the package
    names = {piece.name for piece in walker.pieces}
    pieces = tuple(p if p.parent in names or p.parent is None else replace(p, parent=None) for p in walker.pieces)
    return ParsedFile(
        language="typescript" if language == "tsx" else language,
        pieces=pieces,
        doc=_module_comment(root, data),
    )


class _Walker:
    def __init__(self, grammar: _Grammar, data: bytes):
        self.grammar = grammar
        self.data = data
        self.pieces: list[Piece] = []
        self._names: set[str] = set()

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def visit(self, node: Node, parent: str | None) -> None:
        for child in node.named_children:
            name = self._definition_name(child, parent)
            if name is None:
                self.visit(child, parent)
                continue
            if child.type in self.grammar.containers:
                self._add(child, name, parent, self._outline(child), ())
                self.visit(child, name)
            elif child.type in self.grammar.types:
                self._add(child, name, parent, self.text(child), ())
                self._interface_methods(child, name)
            else:
                body = child.child_by_field_name("body") or child
                owner = self._receiver(child) if child.type == "method_declaration" else parent
                self._add(
                    child, name, owner, self.text(child), tuple(self._calls(body)), self._self_name(child, parent)
                )
                self.routes(body, name)

    def _definition_name(self, node: Node, parent: str | None) -> str | None:
        """The qualified name `node` defines, or None when it defines no symbol."""
        kind = node.type
        if kind in self.grammar.functions or kind in self.grammar.containers or kind in self.grammar.types:
            name_node = node.child_by_field_name("name")
            if name_node is None:
                return None
            owner = self._receiver(node) if kind == "method_declaration" else parent
            return _qualify(owner, self.text(name_node))
        if kind in _HOLDERS and (value := node.child_by_field_name("value")) is not None:
            # a function held by a variable or a class field: `const f = () => ...`, `handle = async () => ...`
            name_node = node.child_by_field_name("name") or node.child_by_field_name("property")
            if value.type in {"arrow_function", "function_expression", "function"} and name_node is not None:
                return _qualify(parent, self.text(name_node))
        return None

    def _receiver(self, method: Node) -> str | None:
        """A Go method's receiver type name: `Server` for `(s *Server)` and `(s Server[T])`."""
        receiver = method.child_by_field_name("receiver")
        if receiver is None:
            return None
        for node in _descendants(receiver):
            if node.type == "type_identifier":
                return self.text(node)
        return None

    def _interface_methods(self, definition: Node, name: str) -> None:
        """The methods an interface declares (Go's `method_elem`, TypeScript's `method_signature`),
        each an abstract symbol `Interface.method` of its own."""
        body = definition.child_by_field_name("type") or definition.child_by_field_name("body")
        if body is None or body.type not in {"interface_type", "interface_body"}:
            return
        for member in body.named_children:
            member_name = member.child_by_field_name("name")
            if member.type in {"method_elem", "method_signature"} and member_name is not None:
                qualified = _qualify(name, self.text(member_name))
                self._add(member, qualified, name, self.text(member), (), abstract=True)

    def _self_name(self, definition: Node, parent: str | None) -> str | None:
        """What the definition's body calls its owner: a Go method's receiver variable (`s` in
        `func (s *Server)`), `this` in a class's method; None for a plain function."""
        if definition.type == "method_declaration":
            receiver = definition.child_by_field_name("receiver")
            for node in _descendants(receiver) if receiver is not None else ():
                if node.type == "parameter_declaration" and (name := node.child_by_field_name("name")) is not None:
                    return self.text(name)
            return None
        return "this" if parent is not None and self.grammar.name != "go" else None

    def _unique(self, name: str, node: Node) -> str:
        """`name`, or for overloads and redeclarations `name~<line>` (repeated): every one is kept."""
        while name in self._names:
            name = f"{name}~{node.start_point[0] + 1}"
        self._names.add(name)
        return name

    def _add(
        self,
        node: Node,
        name: str,
        parent: str | None,
        text: str,
        calls: tuple[str, ...],
        receiver: str | None = None,
        *,
        abstract: bool = False,
    ) -> None:
        unique = self._unique(name, node)
        self.pieces.append(
            Piece(
                kind=RecordKind.SYMBOL,
                name=unique,
                title=unique,
                text=text,
                line=node.start_point[0] + 1,
                parent=parent,
                calls=calls,
                doc=_leading_comment(node, self.data),
                signature=self.text(node).splitlines()[0].strip(),
                receiver=receiver,
                abstract=abstract,
            )
        )

    def _outline(self, container: Node) -> str:
        """A class's first line and the first line of each member: members are symbols of their own."""
        body = container.child_by_field_name("body")
        lines = [self.text(container).splitlines()[0]]
        if body is not None:
            lines.extend(self.text(member).splitlines()[0] for member in body.named_children)
        return "\n".join(lines)

    def _calls(self, body: Node) -> Iterator[str]:
        """Called names in source order, first occurrence only, skipping nested named definitions."""
        seen: set[str] = set()
        for node in _descendants(body, stop=lambda n: n is not body and self._is_definition(n)):
            if node.type in self.grammar.calls:
                callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
                name = self._callee(callee) if callee is not None else None
                if name and name not in seen:
                    seen.add(name)
                    yield name

    def _defines(self, node: Node) -> bool:
        """Whether `node` is a symbol of its own (a function held by a variable included)."""
        return self._is_definition(node) or (node.type in _HOLDERS and self._definition_name(node, None) is not None)

    def _is_definition(self, node: Node) -> bool:
        grammar = self.grammar
        return node.type in grammar.functions or node.type in grammar.containers or node.type in grammar.types

    def _callee(self, node: Node | None) -> str | None:
        """`a.b.c` for identifiers and member/selector chains; `.c` when the chain starts elsewhere."""
        if node is None:
            return None
        parts: list[str] = []
        while node.type in {"member_expression", "selector_expression"}:
            field = node.child_by_field_name("property") or node.child_by_field_name("field")
            if field is None:
                return None
            parts.append(self.text(field))
            node = node.child_by_field_name("object") or node.child_by_field_name("operand")
            if node is None:
                return None
        if node.type in {"identifier", "this", "super"}:
            parts.append(self.text(node))
        elif not parts:
            return None
        else:
            parts.append("")
        return ".".join(reversed(parts))

    def routes(self, body: Node, owner: str | None = None) -> None:
        """Route registrations in `body` (a function's, or the file's outside any symbol)."""
        scope = self._bindings(body)
        for node in _descendants(body, stop=lambda n: n is not body and self._defines(n)):
            if node.type == "call_expression":
                self._route_piece(node, owner, scope)

    def _bindings(self, body: Node) -> _Scope:
        """What the names assigned in `body` stand for, in source order: a route group (`api :=
        e.Group("/api", auth)`: its prefix and middleware, added to its parent group's) or the
        function a call result came from (`mw := middleware.CSRF(addr)`: `middleware.CSRF`)."""
        scope = _Scope()
        for node in _descendants(body, stop=lambda n: n is not body and self._defines(n)):
            for name, value in self._assignments(node):
                callee = (
                    self._callee(value.child_by_field_name("function")) if value.type == "call_expression" else None
                )
                if callee is None:
                    continue
                receiver, _, verb = callee.rpartition(".")
                arguments = value.child_by_field_name("arguments")
                args = arguments.named_children if arguments is not None else []
                if verb.lower() == "group" and args and args[0].type in self.grammar.strings:
                    prefix, middleware = scope.groups.get(receiver, ("", ()))
                    names = [n for arg in args[1:] for n in self._handler_names(arg, scope)]
                    scope.groups[name] = (prefix + _unquote(self.text(args[0])), (*middleware, *names))
                else:
                    scope.aliases[name] = callee
        return scope

    def _assignments(self, node: Node) -> Iterator[tuple[str, Node]]:
        """(name, value) for each single-name assignment or declaration `node` makes."""
        if node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and value is not None and name.type == "identifier":
                yield self.text(name), value
        elif node.type in {"short_var_declaration", "assignment_statement", "assignment_expression"}:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None:
                return
            names = left.named_children if left.type == "expression_list" else [left]
            values = right.named_children if right.type == "expression_list" else [right]
            if len(names) == len(values):
                for name, value in zip(names, values, strict=True):
                    if name.type == "identifier":
                        yield self.text(name), value

    def _route_piece(self, call: Node, owner: str | None, scope: _Scope) -> None:
        """A route piece for `call` when it registers a route: a path string and a handler after
        it (a name, a call wrapping handlers, or an inline function whose calls the route takes)."""
        route = self._route(call, scope)
        if route is None:
            return
        title, calls = route
        unique = self._unique(title, call)
        self.pieces.append(
            Piece(
                kind=RecordKind.ROUTE,
                name=unique,
                title=unique,
                text=self.text(call),
                line=call.start_point[0] + 1,
                parent=owner,
                calls=calls,
                signature=self.text(call).splitlines()[0].strip(),
            )
        )

    def _route(self, call: Node, scope: _Scope) -> tuple[str, tuple[str, ...]] | None:
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        registrar = self._callee(function)
        if registrar is None or not registers_routes(registrar):
            return None
        prefix, middleware = scope.groups.get(registrar.rpartition(".")[0], ("", ()))
        args = arguments.named_children
        for index, argument in enumerate(args):
            if argument.type not in self.grammar.strings:
                continue
            title = route_title(registrar, _join(prefix, _unquote(self.text(argument))))
            handlers = args[index + 1 :]
            if title is None or not handlers:
                return None
            calls = [*middleware, *(name for handler in handlers for name in self._handler_names(handler, scope))]
            return title, tuple(dict.fromkeys(calls))
        return None

    def _handler_names(self, node: Node, scope: _Scope) -> list[str]:
        """The functions a handler argument stands for: a name (or what a local name was
        assigned from), a call and the handlers passed to it (middleware wrapping a handler,
        a handler factory), or what an inline function calls."""
        if node.type in {"arrow_function", "function_expression", "function", "func_literal"}:
            return list(self._calls(node))
        if node.type == "call_expression":
            callee = self._callee(node.child_by_field_name("function"))
            arguments = node.child_by_field_name("arguments")
            inner = [
                n for arg in (arguments.named_children if arguments else []) for n in self._handler_names(arg, scope)
            ]
            named = ([scope.aliases[callee], callee] if callee in scope.aliases else [callee]) if callee else []
            return named + inner
        name = self._callee(node)
        if name is None:
            return []
        # a local name stands for what it was assigned from; it is kept too, as the flow shows it
        return [scope.aliases[name], name] if name in scope.aliases else [name]


@dataclass
class _Scope:
    groups: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    """Variable -> (path prefix, middleware names) of a route group."""
    aliases: dict[str, str] = field(default_factory=dict)
    """Variable -> the function whose call result it holds."""


def _join(prefix: str, path: str) -> str:
    """A group prefix and a route path as one path (`/api/v1` + `/write`; `` + `/x`; `/api` + ``)."""
    if not prefix:
        return path
    return prefix.rstrip("/") + ("/" + path.lstrip("/") if path.strip("/") else "")


_HOLDERS = frozenset({"variable_declarator", "public_field_definition", "field_definition"})
"""Nodes that define a symbol when their value is a function."""
_WRAPPERS = frozenset({"export_statement", "lexical_declaration", "variable_declaration", "type_declaration"})
"""Nodes around a definition that its leading comment sits above."""


def _qualify(owner: str | None, name: str) -> str:
    return f"{owner}.{name}" if owner else name


def _descendants(node: Node, stop: Callable[[Node], bool] = lambda _: False) -> Iterator[Node]:
    """`node` and its named descendants in source order, not entering nodes `stop` accepts."""
    stack = [node]
    while stack:
        current = stack.pop()
        if stop(current):
            continue
        yield current
        stack.extend(reversed(current.named_children))


def _unquote(literal: str) -> str:
    return literal[1:-1] if len(literal) >= 2 and literal[0] == literal[-1] and literal[0] in "\"'`" else literal


def _comment_text(raw: str) -> str:
    lines = []
    for line in raw.splitlines():
        line = line.strip()
        for marker in ("/**", "/*", "*/", "//", "*"):
            line = line.removeprefix(marker).removesuffix("*/") if line.startswith(marker) else line
        lines.append(line.strip())
    return "\n".join(line for line in lines if line)


def _leading_comment(node: Node, data: bytes) -> str:
    """The comments directly above a definition (or above the `export` that wraps it)."""
    anchor = node
    while anchor.parent is not None and anchor.parent.type in _WRAPPERS:
        anchor = anchor.parent
    comments: list[str] = []
    line = anchor.start_point[0]
    sibling = anchor.prev_named_sibling
    while sibling is not None and sibling.type == "comment" and sibling.end_point[0] >= line - 1:
        comments.append(data[sibling.start_byte : sibling.end_byte].decode("utf-8", "replace"))
        line = sibling.start_point[0]
        sibling = sibling.prev_named_sibling
    return _comment_text("\n".join(reversed(comments)))


def _module_comment(root: Node, data: bytes) -> str:
    """The comments that open the file (Go's package comment, a JS/TS file header)."""
    comments: list[str] = []
    for child in root.named_children:
        if child.type != "comment":
            break
        comments.append(data[child.start_byte : child.end_byte].decode("utf-8", "replace"))
    return _comment_text("\n".join(comments))
