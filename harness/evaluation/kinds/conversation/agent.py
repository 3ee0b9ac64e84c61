"""The efficiency baseline: a scripted agent that answers from the files, as an agent with tools
would, and whose reading is counted in cl100k_base tokens.

It starts from the whole history and the message, and must earn its answer from the project. A
term the user's message holds is no evidence of an answer (asked "is it Express?", an agent
finds "express" by reading the question, or in the first line a search for it prints), so those
terms leave the answer groups (`TurnChecks.answer_terms`, case-insensitive), and a group left
empty leaves with them. Until every remaining group has a term in what its tools returned (the
history does not count either: the project must answer), it:
1. lists the project folder (`list_directory`);
2. searches the files for each content word of the message (`file_search`: every matching line
   as `path:line: text`, at most `SEARCH_LINES` per word);
3. opens the files the searches found, most distinct words matched first (`read_file`: the whole
   text; an EPUB as the text of its chapters);
4. then lists each folder and opens the files no search found, in path order.
Its tokens are everything it had read when it could answer: history, message and every tool
output. A turn with no answer terms, or only terms of its own message, gives the agent nothing to
look for: no agent measurement; a turn whose terms no file holds (a fact the user stated) leaves
it unanswered after every file.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness import tokens
from harness.files import NotReadable, read_bounded
from harness.pipeline.project_memory import code_terms
from harness.suites.projects import epub
from harness.suites.projects.ingest import IGNORED_FOLDERS, MAX_FILE_BYTES

SEARCH_LINES = 20
"""Lines one `file_search` returns, as search tools cap their output."""


@dataclass(frozen=True, slots=True)
class AgentRun:
    steps: tuple[str, ...]
    """Tool calls in order (`list_directory .`, `file_search tide`, `read_file server/tides.py`)."""
    tokens: int
    """History, message and tool outputs, in cl100k_base tokens."""
    answered: bool
    """Whether the answer terms were found before the agent ran out of files."""


class ScriptedAgent:
    """Reads one project folder; its file texts are read once and kept."""

    def __init__(self, root: Path):
        self.root = root
        self._texts: dict[str, str] = {}
        for path in sorted(self._files()):
            text = _read(root / path)
            if text is not None:
                self._texts[path] = text

    def _files(self) -> list[str]:
        found: list[str] = []
        for directory, subfolders, files in os.walk(self.root):
            subfolders[:] = sorted(s for s in subfolders if s not in IGNORED_FOLDERS)
            base = Path(directory).relative_to(self.root)
            found.extend((base / name).as_posix() for name in files)
        return found

    def run(self, history: str, message: str, groups: Sequence[Sequence[str]]) -> AgentRun | None:
        """The agent's reading for one turn; None when the turn has no answer terms but the
        message's own words."""
        asked = message.lower()
        groups = [kept for group in groups if (kept := tuple(t for t in group if t.lower() not in asked))]
        if not groups:
            return None
        read = [history, message]
        steps: list[str] = []

        def answered() -> bool:
            seen = "\n".join(read[2:]).lower()  # what the tools returned
            return all(any(term.lower() in seen for term in group) for group in groups)

        def call(step: str, output: str) -> bool:
            steps.append(step)
            read.append(output)
            return answered()

        if call("list_directory .", self._listing(".")):
            return self._done(steps, read, True)
        hits: dict[str, set[str]] = {}
        for word in dict.fromkeys(t for t in code_terms(message, drop_stopwords=True) if len(t) > 2):
            lines = [
                f"{path}:{number}: {line.strip()}"
                for path, text in self._texts.items()
                for number, line in enumerate(text.splitlines(), 1)
                if word in line.lower()
            ]
            for line in lines:
                hits.setdefault(line.split(":", 1)[0], set()).add(word)
            if call(f"file_search {word}", "\n".join(lines[:SEARCH_LINES])):
                return self._done(steps, read, True)
        for path in sorted(hits, key=lambda p: (-len(hits[p]), p)):
            if call(f"read_file {path}", self._texts[path]):
                return self._done(steps, read, True)
        listed = {"."}
        for path in self._texts:
            if path in hits:
                continue
            folder = path.rsplit("/", 1)[0] if "/" in path else "."
            if folder not in listed:
                listed.add(folder)
                if call(f"list_directory {folder}", self._listing(folder)):
                    return self._done(steps, read, True)
            if call(f"read_file {path}", self._texts[path]):
                return self._done(steps, read, True)
        return self._done(steps, read, False)

    def _listing(self, folder: str) -> str:
        base = self.root / folder
        try:
            entries = sorted(base.iterdir(), key=lambda e: e.name)
        except OSError as exc:
            return f"{folder}: {exc.strerror}"
        return "\n".join(
            f"{entry.name}/" if entry.is_dir() else entry.name for entry in entries if entry.name not in IGNORED_FOLDERS
        )

    @staticmethod
    def _done(steps: list[str], read: list[str], answered: bool) -> AgentRun:
        return AgentRun(tuple(steps), tokens.count("\n".join(read)), answered)


def _read(path: Path) -> str | None:
    """A file as an agent's read tool gives it: UTF-8 text, an EPUB's chapter texts, else nothing
    (a link, not a regular file, over the size limit, unreadable, a name that is not UTF-8)."""
    try:
        str(path).encode("utf-8")
        if path.is_symlink():
            return None
        if path.suffix.lower() == ".epub":
            read_bounded(path, MAX_FILE_BYTES)  # regular, bounded
            return "\n\n".join(piece.text for piece in epub.parse(path).pieces)
        return read_bounded(path, MAX_FILE_BYTES).decode("utf-8")
    except (UnicodeError, NotReadable):
        return None
    except Exception:  # noqa: BLE001 - ebooklib raises anything on a broken book; ingest skips it too
        return None
