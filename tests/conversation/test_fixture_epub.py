"""The prose fixture's EPUB is what `cases/conversation/build_epub.py` builds: its chapters hold the
script's stories, so the committed binary can always be rebuilt and checked."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from harness.suites.projects import epub

SCRIPT = Path(__file__).parents[2] / "cases" / "conversation" / "build_epub.py"


def _script():
    spec = importlib.util.spec_from_file_location("build_epub", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _chapters(path: Path) -> list[tuple[str, str]]:
    return [(piece.title, " ".join(piece.text.split())) for piece in epub.parse(path).pieces]


def test_committed_epub_holds_the_scripts_stories(tmp_path: Path) -> None:
    script = _script()
    expected = [(title, " ".join([title, *paragraphs])) for title, paragraphs in script.STORIES]
    assert _chapters(script.TARGET) == expected
    rebuilt = script.build(tmp_path / "tales.epub")
    assert _chapters(rebuilt) == expected
