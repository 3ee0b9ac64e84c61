"""A project (code base, prose work, folder of documents) as memory records: what ingestion produces.

Records form a tree by `parent` (folder > file > section or symbol) and a graph by `calls` (symbol
to symbol, from the parsers), so conversation turns can pick a small context and code tasks can
follow callers and callees. Ingestion is deterministic: the same folder gives the same records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path, PurePosixPath

_TEST_FILE = re.compile(r"(_test\.go|\.(test|spec)\.[cm]?[jt]sx?|_test\.py|_spec\.rb)$|(^|/)test_[^/]*\.py$")
_TEST_FOLDER = frozenset({"test", "tests", "spec", "__tests__", "__mocks__", "testdata"})


def is_test_path(path: str) -> bool:
    """Whether `path` (POSIX, relative to the project) is a test file or lies in a test folder."""
    return bool(_TEST_FILE.search(path)) or any(part in _TEST_FOLDER for part in PurePosixPath(path).parts[:-1])


class RecordKind(StrEnum):
    OVERVIEW = "overview"
    FOLDER = "folder"
    FILE = "file"
    SECTION = "section"
    SYMBOL = "symbol"
    ROUTE = "route"
    """An HTTP route registration (`GET /items`); its calls lead to the handler."""
    FACT = "fact"
    """Something the user stated in a conversation, stored so a later turn can recall it."""


@dataclass(frozen=True, slots=True)
class ProjectRecord:
    id: str
    """Stable: the path, plus `#` and the heading path or qualified symbol name below file level."""
    kind: RecordKind
    path: str
    """POSIX path relative to the project root (empty for the overview)."""
    title: str
    """Heading text, qualified symbol name, or file/folder name."""
    text: str
    parent: str | None = None
    language: str | None = None
    calls: tuple[str, ...] = ()
    """Ids of the symbol records this symbol calls (resolved by name within the project)."""
    line: int | None = None
    """First line of a section or symbol in its file (1-based)."""
    external_calls: tuple[str, ...] = ()
    """Call names as written that name no symbol of the project (libraries, builtins, local
    variables): what a flow passes through outside the project."""
    call_sites: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Each distinct call name as written, in call order, with the ids it resolved to (none:
    outside the project): what a capped fan-out counts (nano-brain's flow follows the first
    `max_fanout` call edges of a function, one edge per callee name)."""


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class Project:
    name: str
    root: Path
    records: tuple[ProjectRecord, ...]
    skipped: tuple[Skipped, ...] = field(default=())
