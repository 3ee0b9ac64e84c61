"""Call names resolved to symbols, by name within the project.

A call `a.b.run` names `run`; it links to the symbols whose own name (the last part of their
qualified name) is `run`, taken from the nearest scope that has any: the module or package the
qualifier names (`fusion.rrf` -> an `rrf` in `fusion.py` or in a folder `fusion/`); the calling
file; the calling file's folder; the whole project (every candidate: a method called
through an interface or an instance may be any of them). Names the project does not define
(builtins, libraries) link nowhere.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True, slots=True)
class Symbol:
    id: str
    path: str
    name: str
    """Qualified name (`Server.handle`, possibly `~line` for a second definition)."""

    @property
    def short(self) -> str:
        return self.name.split("~", 1)[0].rsplit(".", 1)[-1]


class CallResolver:
    def __init__(self, symbols: Iterable[Symbol]):
        self._by_name: dict[str, list[Symbol]] = defaultdict(list)
        for symbol in symbols:
            self._by_name[symbol.short].append(symbol)

    def resolve(self, path: str, calls: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(the ids the calls made from file `path` link to, the calls that link nowhere), each
        in call order, each once."""
        linked: dict[str, None] = {}
        external: dict[str, None] = {}
        for call in calls:
            targets = self._targets(path, call)
            for target in targets:
                linked.setdefault(target, None)
            if not targets:
                external.setdefault(call, None)
        return tuple(linked), tuple(external)

    def _targets(self, path: str, call: str) -> list[str]:
        parts = call.split(".")
        candidates = self._by_name.get(parts[-1], [])
        if not candidates:
            return []
        folder = str(PurePosixPath(path).parent)
        qualifier = parts[-2] if len(parts) > 1 else ""
        scopes = (
            lambda s: bool(qualifier) and qualifier in _module_names(s.path),
            lambda s: s.path == path,
            lambda s: str(PurePosixPath(s.path).parent) == folder,
        )
        for in_scope in scopes:
            found = [s.id for s in candidates if in_scope(s)]
            if found:
                return found
        return [s.id for s in candidates]


def _module_names(path: str) -> tuple[str, str]:
    """The names code uses for the module of `path`: its file stem and its folder (Go's package)."""
    pure = PurePosixPath(path)
    return pure.stem, pure.parent.name
