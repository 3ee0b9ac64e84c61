"""Reading YAML suite files safely: no aliases (a "billion laughs" document expands without bound),
a nesting limit (deep nesting ends in `RecursionError`), and duplicate keys an error naming the line
(PyYAML keeps the later one silently)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node

from harness.errors import CaseFileError
from harness.messages import one_line
from harness.suites.jsonfile import read_text

MAX_DEPTH = 64
"""Deepest nesting of mappings and lists accepted; suite files nest a handful of levels."""


class _Refused(Exception):
    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.line = line


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader without aliases, with a depth limit and duplicate keys refused."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: object) -> Node | None:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            raise _Refused("aliases (*name) are not accepted", event.start_mark.line + 1)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels", self.peek_event().start_mark.line + 1)
            return super().compose_node(parent, index)  # type: ignore[arg-type]
        finally:
            self._depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                repeated = key in seen
                seen.add(key)
            except TypeError:
                continue  # an unhashable key: the base constructor says so
            if repeated:
                raise _Refused(f"duplicate key {key!r}", key_node.start_mark.line + 1)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: Path) -> Any:
    """Parse one YAML suite file (read as `read_text` reads it: regular, bounded, UTF-8)."""
    text = read_text(path, "YAML")
    loader: _StrictLoader | None = None
    try:
        loader = _StrictLoader(text)  # its reader refuses control characters (NUL) at once
        return loader.get_single_data()
    except _Refused as exc:
        raise CaseFileError(path, f"line {exc.line}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or one_line(exc)  # a ReaderError (NUL) has no `problem`
        raise CaseFileError(path, f"invalid YAML{where}: {problem}") from None
    except RecursionError:
        raise CaseFileError(path, "YAML nested too deeply to read") from None
    finally:
        if loader is not None:
            loader.dispose()
