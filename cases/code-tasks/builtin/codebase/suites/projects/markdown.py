"""Markdown files by heading, with markdown-it (CommonMark): a `#` inside a code fence is not a heading."""

from __future__ import annotations

from markdown_it import MarkdownIt

from harness.models.project import RecordKind
from harness.suites.projects.parsed import ParsedFile, Piece


def parse(source: str) -> ParsedFile:
    """One section per heading, running to the next heading of any level; a section's parent is
    the nearest heading above it of a higher level. Text before the first heading is the file's lead."""
    lines = source.splitlines()
    tokens = MarkdownIt("commonmark").parse(source)
    headings: list[tuple[int, int, str]] = []  # (first line, level, title)
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map is not None:
            headings.append((token.map[0], int(token.tag[1:]), tokens[index + 1].content.strip()))
    pieces: list[Piece] = []
    open_sections: list[tuple[int, str]] = []  # (level, name) of the headings enclosing the next one
    used: set[str] = set()
    for position, (first, level, title) in enumerate(headings):
        end = headings[position + 1][0] if position + 1 < len(headings) else len(lines)
        while open_sections and open_sections[-1][0] >= level:
            open_sections.pop()
        parent = open_sections[-1][1] if open_sections else None
        name = f"{parent}/{title}" if parent else title
        if name in used:  # two headings with one path: the second is named by its line too
            name = f"{name}~{first + 1}"
        used.add(name)
        pieces.append(
            Piece(
                kind=RecordKind.SECTION,
                name=name,
                title=title,
                text="\n".join(lines[first:end]).strip(),
                line=first + 1,
                parent=parent,
            )
        )
        open_sections.append((level, name))
    lead_end = headings[0][0] if headings else len(lines)
    return ParsedFile(language="markdown", pieces=tuple(pieces), doc="\n".join(lines[:lead_end]).strip())
