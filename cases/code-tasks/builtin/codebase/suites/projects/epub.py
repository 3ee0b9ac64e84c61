"""EPUB books by chapter, with ebooklib: each document of the reading order (but the navigation
document) is a section,
titled by its first heading (else the table of contents' label, else its file name)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import ebooklib
from ebooklib import epub
from lxml import html

from harness.limits import MAX_ARCHIVE_BYTES
from harness.models.project import RecordKind
from harness.suites.projects.parsed import ParsedFile, Piece


class TooLarge(ValueError):
    """An archive whose members expand beyond `MAX_ARCHIVE_BYTES` (a zip bomb, or not a book)."""


def parse(path: Path) -> ParsedFile:
    """The book's chapters; its zip directory is checked first, since ebooklib reads every member whole."""
    with zipfile.ZipFile(path) as archive:
        expanded = sum(member.file_size for member in archive.infolist())
    if expanded > MAX_ARCHIVE_BYTES:
        raise TooLarge(f"expands to {expanded} bytes, over {MAX_ARCHIVE_BYTES}")
    book = epub.read_epub(str(path), options={"ignore_ncx": True})
    labels = {_href(link.href): link.title for link in _links(book.toc)}
    pieces: list[Piece] = []
    used: set[str] = set()
    for position, (item_id, _) in enumerate(book.spine, 1):
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or isinstance(item, epub.EpubNav):
            continue  # the navigation document is the table of contents, not a chapter
        tree = html.fromstring(item.get_content())
        text = "\n".join(line.strip() for line in tree.text_content().splitlines() if line.strip())
        if not text:
            continue
        heading = next((h.text_content().strip() for h in tree.iter("h1", "h2", "h3") if h.text_content().strip()), "")
        title = heading or labels.get(item.get_name()) or item.get_name()
        name = title if title not in used else f"{title}~{position}"
        used.add(name)
        pieces.append(Piece(kind=RecordKind.SECTION, name=name, title=title, text=text, line=None))
    title = book.get_metadata("DC", "title")
    creator = book.get_metadata("DC", "creator")
    doc = " ".join(part for part in (title[0][0] if title else "", f"by {creator[0][0]}" if creator else "") if part)
    return ParsedFile(language="epub", pieces=tuple(pieces), doc=doc)


def _links(toc: list | tuple) -> list[epub.Link]:
    """Every link of a (nested) table of contents."""
    found: list[epub.Link] = []
    for entry in toc:
        if isinstance(entry, tuple):
            section, children = entry
            if isinstance(section, epub.Link):
                found.append(section)
            found.extend(_links(children))
        elif isinstance(entry, epub.Link):
            found.append(entry)
    return found


def _href(href: str) -> str:
    return href.split("#", 1)[0]
