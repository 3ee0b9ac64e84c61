"""A small project written for these tests: every parser's input, with what it should yield
known from reading it (no recorded output)."""

from __future__ import annotations

import os
from pathlib import Path

from ebooklib import epub

FILES = {
    "README.md": """# Orchard

Orchard tracks fruit trees and their harvests.

It serves a small HTTP API.

## Running

Start the server with `orchard serve`.
""",
    "pyproject.toml": """[project]
name = "orchard"
dependencies = ["flask>=3", "numpy"]

[project.optional-dependencies]
dev = ["pytest"]
""",
    "orchard/__init__.py": '"""Orchard: trees and harvests."""\n',
    "orchard/harvest.py": '''"""Harvest bookkeeping."""

from orchard.trees import Tree


class Ledger:
    """Keeps every harvest."""

    unit = "kg"

    def record(self, tree: Tree, weight: float) -> None:
        """Add one harvest."""
        self._check(weight)
        total_weight([weight])

    def _check(self, weight: float) -> None:
        if weight < 0:
            raise ValueError(weight)


def total_weight(weights):
    """Sum of harvest weights."""
    return sum(weights)


@app.get("/harvests")
def list_harvests():
    return Ledger().record(None, 0)
''',
    "orchard/trees.py": '''"""Trees of the orchard."""


class Tree:
    def __init__(self, species):
        self.species = species

    def prune(self):
        """Cut the dead wood."""
        return helper()


def helper():
    def inner():
        return total_weight([])

    return inner()
''',
    "orchard/broken.py": "def broken(:\n    pass\n",
    "server/main.go": """// Package server serves the orchard API.
package server

import "net/http"

// Server holds the store.
type Server struct{ store *Store }

// Routes registers the handlers.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/trees", s.listTrees)
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { writeOK(w) })
}

func (s *Server) listTrees(w http.ResponseWriter, r *http.Request) {
	trees := s.store.AllTrees()
	writeJSON(w, trees)
}

func writeOK(w http.ResponseWriter) { writeJSON(w, "ok") }

func writeJSON(w http.ResponseWriter, v any) {}
""",
    "server/store.go": """package server

// Store keeps trees in memory.
type Store struct{ trees []string }

// AllTrees returns every tree.
func (s *Store) AllTrees() []string { return s.trees }
""",
    "web/api.ts": """/** Client for the orchard API. */
import express from "express";

export interface TreeView { species: string }

/** Fetches the trees. */
export async function fetchTrees(): Promise<TreeView[]> {
  const response = await request("/api/trees");
  return parseTrees(response);
}

export const parseTrees = (raw: string): TreeView[] => JSON.parse(raw);

function request(path: string): Promise<string> {
  return fetch(path).then((r) => r.text());
}

export class TreeList {
  items: TreeView[] = [];
  async refresh() {
    this.items = await fetchTrees();
  }
}

const app = express();
app.post("/api/harvests", (req, res) => { saveHarvest(req.body); });

function saveHarvest(body: unknown) {}
""",
    "web/util.js": """// Helpers for the page.
function formatWeight(kg) {
  return `${kg} kg`;
}

module.exports = { formatWeight };
""",
    "web/style.css": "body { color: green; }\n",
    "data/trees.json": '{"trees": ["apple", "pear"]}\n',
    "docs/notes.md": """Notes before any heading.

# Planning

## Season

```
# not a heading, inside a fence
```

### Pruning

Prune in winter.

## Season

A second section with the same heading.
""",
}
BINARY = "images/logo.png"
HUGE = "data/dump.txt"


def write_sample(root: Path, with_book: bool = True) -> Path:
    """The sample project under `root`; with a binary, an over-size file, a symlink, a
    dependency folder and (optionally) an EPUB book of two chapters."""
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / BINARY).parent.mkdir(parents=True, exist_ok=True)
    (root / BINARY).write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (root / HUGE).write_text("x" * (1024 * 1024 + 1), encoding="utf-8")
    (root / "node_modules" / "left-pad").mkdir(parents=True)
    (root / "node_modules" / "left-pad" / "index.js").write_text("function leftPad() {}\n")
    os.symlink(root / "README.md", root / "link.md")
    if with_book:
        write_book(root / "books" / "tales.epub")
    return root


def write_book(path: Path) -> None:
    book = epub.EpubBook()
    book.set_identifier("tales-1")
    book.set_title("Orchard Tales")
    book.add_author("A. Gardener")
    chapters = []
    for number, (title, body) in enumerate(
        [("The First Frost", "The apples froze overnight."), ("Spring Blossom", "Pear trees bloomed early.")], 1
    ):
        chapter = epub.EpubHtml(title=title, file_name=f"chap{number}.xhtml")
        chapter.content = f"<html><body><h1>{title}</h1><p>{body}</p></body></html>"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    path.parent.mkdir(parents=True, exist_ok=True)
    epub.write_epub(str(path), book)
