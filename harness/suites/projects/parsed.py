"""What one parser makes of one file, before the project links it: pieces with raw call names.

Parsers know one file; only the whole project can say which symbol a call name means, so a
parser reports the names as written (`self.load`, `pkg.Run`, `handleQuery`) and
`harness.suites.projects.calls` resolves them once every file is parsed.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.models.project import RecordKind


@dataclass(frozen=True, slots=True)
class Piece:
    kind: RecordKind
    """SECTION, SYMBOL or ROUTE: what the piece's record will be."""
    name: str
    """Unique within the file: the heading path (`Intro/Setup`), qualified symbol name
    (`Server.handle`) or route (`GET /items`)."""
    title: str
    text: str
    line: int | None
    parent: str | None = None
    """The enclosing piece's `name`; None when the file itself is the parent."""
    calls: tuple[str, ...] = ()
    """Call names as written in the source (for a route: its handler, then what an inline handler calls)."""
    doc: str = ""
    """The symbol's docstring or leading comment, for the module summary."""
    signature: str = ""
    """The symbol's first line (`def load(self, docs)`, `func (s *Server) Run() error`)."""
    abstract: bool = False
    """A method an interface declares (`Searcher.Search`): a call that resolves to it means its
    implementations as well."""
    receiver: str | None = None
    """The name a method's body calls its owner by (Go's receiver variable, `this`): a call through
    it (`s.flush`) means the owner's own method first."""


@dataclass(frozen=True, slots=True)
class ParsedFile:
    language: str | None
    pieces: tuple[Piece, ...] = ()
    doc: str = ""
    """Module docstring or leading comment: the first line of the module summary."""
    text: str = ""
    """The file record's text when the file has no pieces (JSON, CSS, plain text)."""
