"""Call names resolved to symbols, by name within the project, production code first.

A call `a.b.run` names `run`; it links to the symbols whose own name (the last part of their
qualified name) is `run`. Symbols in test files (`_test.go`, `*.test.ts`, `*.spec.js`,
`test_*.py`, folders `test/`, `tests/`, `spec/`, `__tests__/`, `__mocks__/`, `testdata/`) are
candidates only when nothing else defines the name (or, for a call made in a test file, when
they are in that file): production code never calls a test double, so a handler's call through
an interface must not land on a test's mock. Among the candidates, the nearest scope that has
any wins: the caller's own type when the call goes through its receiver (`s.flush` in a method
of `Server` -> `Server.flush`; `this.load` in a class); the module or package the qualifier names
(`fusion.rrf` -> an `rrf` in `fusion.py` or in a folder `fusion/`); the calling file; the calling
file's folder; the whole project (every candidate: a method called through an interface or an
instance may be any of them). A call that lands on a method an interface declares also reaches
the concrete methods of that name. Names the project does not define (builtins, libraries) link
nowhere.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from harness.models.project import is_test_path


@dataclass(frozen=True, slots=True)
class Symbol:
    id: str
    path: str
    name: str
    """Qualified name (`Server.handle`, possibly `~line` for a second definition)."""
    abstract: bool = False
    """Declared by an interface: calls that reach it reach its implementations too."""

    @property
    def short(self) -> str:
        return self.name.split("~", 1)[0].rsplit(".", 1)[-1]

    @property
    def owner(self) -> str:
        """The type or class a method belongs to (`Server` for `Server.flush`); empty for a function."""
        return self.name.split("~", 1)[0].rpartition(".")[0]


class CallResolver:
    def __init__(self, symbols: Iterable[Symbol]):
        self._by_name: dict[str, list[Symbol]] = defaultdict(list)
        for symbol in symbols:
            self._by_name[symbol.short].append(symbol)

    def resolve(
        self, path: str, calls: Sequence[str], owner: str = "", receiver: str | None = None
    ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]]:
        """(the ids the calls made from file `path` link to, the calls that link nowhere, each
        distinct call with its ids), each in call order, each once. `owner` and `receiver`: the
        calling method's type and the name its body calls it by."""
        sites: dict[str, tuple[str, ...]] = {}
        for call in calls:
            if call not in sites:
                sites[call] = tuple(self._targets(path, call, owner, receiver))
        linked = dict.fromkeys(target for targets in sites.values() for target in targets)
        external = tuple(call for call, targets in sites.items() if not targets)
        return tuple(linked), external, tuple(sites.items())

    def _targets(self, path: str, call: str, owner: str, receiver: str | None) -> list[str]:
        parts = call.split(".")
        candidates = self._by_name.get(parts[-1], [])
        production = [s for s in candidates if not is_test_path(s.path) or s.path == path]
        candidates = production or candidates
        if not candidates:
            return []
        folder = str(PurePosixPath(path).parent)
        qualifier = parts[-2] if len(parts) > 1 else ""
        through_receiver = bool(owner) and receiver is not None and parts[0] == receiver and len(parts) == 2
        scopes = (
            lambda s: through_receiver and s.owner == owner,
            lambda s: bool(qualifier) and qualifier in _module_names(s.path),
            lambda s: s.path == path,
            lambda s: str(PurePosixPath(s.path).parent) == folder,
        )
        for in_scope in scopes:
            found = [s for s in candidates if in_scope(s)]
            if found:
                return _with_implementations(found, candidates)
        return [s.id for s in candidates]


def _with_implementations(found: list[Symbol], candidates: list[Symbol]) -> list[str]:
    """A call that lands only on interface methods (through an interface-typed field or
    parameter) also reaches the concrete methods of that name: the parser sees the interface, not
    which type implements it."""
    if all(s.abstract for s in found):
        found = found + [s for s in candidates if not s.abstract]
    return [s.id for s in found]


def _module_names(path: str) -> tuple[str, str]:
    """The names code uses for the module of `path`: its file stem and its folder (Go's package)."""
    pure = PurePosixPath(path)
    return pure.stem, pure.parent.name
