"""A project folder as memory records: the tree (folders, files, sections, symbols, routes), the
call graph between symbols, a deterministic overview and per-file summaries.

Every file below the root is read once, in path order, so the same folder always gives the same
records. Files that cannot be records are skipped with the reason (binary, not UTF-8, a name that
is not UTF-8, over the size limit, a link, a parse error, a path or word over what every engine
can store: `harness.limits`); folders of tools and dependencies are skipped whole.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from harness.errors import HarnessError
from harness.limits import MAX_DOCUMENT_BYTES, MAX_PATH_BYTES, MAX_WORD_CHARS
from harness.models.project import Project, ProjectRecord, RecordKind, Skipped
from harness.suites.projects import epub, markdown, python_code, tree_sitter_code
from harness.suites.projects.calls import CallResolver, Symbol
from harness.suites.projects.overview import MANIFESTS, file_summary, overview
from harness.suites.projects.parsed import ParsedFile

MAX_FILE_BYTES = MAX_DOCUMENT_BYTES
"""Larger files are skipped: generated or data files, whose text would swamp every search."""
IGNORED_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".acervo",
    }
)
"""Version control, dependency and cache folders: not the project's own text."""
_WORD = re.compile(r"[^\W_]+")
"""A word as every engine's analyser sees it (`harness.text`)."""
OVERVIEW_ID = "#overview"
"""The overview's id: its path is empty, and no file's id starts with `#`."""

_CODE = {
    ".py": "python",
    ".go": "go",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
}
_MARKDOWN = frozenset({".md", ".markdown"})
_TEXT_LANGUAGES = {
    ".json": "json",
    ".html": "html",
    ".htm": "html",
    ".css": "css",
    ".scss": "css",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".txt": "text",
    ".rst": "text",
}


class ProjectError(HarnessError, ValueError):
    """The folder cannot be ingested at all (missing, not a folder): bad input, exit 2."""


def ingest(folder: Path, name: str | None = None, exclude: Iterable[str] = ()) -> Project:
    """The project in `folder`, named `name` (default: the folder's name), without the files and
    folders `exclude` names (POSIX paths relative to `folder`; each is reported as skipped)."""
    root = folder.resolve()
    if not root.is_dir():
        raise ProjectError(
            f"project folder {folder} is not a folder" if root.exists() else f"no project folder {folder}"
        )
    parsed: dict[str, ParsedFile] = {}
    manifests: dict[str, str] = {}
    skipped: list[Skipped] = []
    folders: set[str] = set()
    for path, relative in _walk(root, skipped, frozenset(e.strip("/") for e in exclude)):
        folders.update(str(p) for p in PurePosixPath(relative).parents if str(p) != ".")
        result = _parse(path, relative)
        if isinstance(result, Skipped):
            skipped.append(result)
            continue
        if (over := _over_limits(relative, result)) is not None:
            skipped.append(Skipped(relative, over))
            continue
        parsed[relative] = result
        if PurePosixPath(relative).name in MANIFESTS:
            manifests[relative] = result.text
    records = _records(parsed, folders)
    project_name = name or root.name
    records.insert(
        0, ProjectRecord(OVERVIEW_ID, RecordKind.OVERVIEW, "", project_name, overview(project_name, parsed, manifests))
    )
    return Project(project_name, root, tuple(records), tuple(sorted(skipped, key=lambda s: s.path)))


def _walk(root: Path, skipped: list[Skipped], excluded: frozenset[str]) -> Iterator[tuple[Path, str]]:
    """Regular files below `root` in path order, with their POSIX path relative to it."""

    def unreadable(error: OSError) -> None:
        folder = Path(error.filename or root).relative_to(root).as_posix()
        skipped.append(Skipped(f"{folder}/", f"unreadable: {error.strerror}"))

    for directory, subfolders, files in os.walk(root, onerror=unreadable):
        base = Path(directory)
        relative_base = base.relative_to(root).as_posix()
        kept = []
        for sub in sorted(subfolders):
            relative = sub if relative_base == "." else f"{relative_base}/{sub}"
            if relative in excluded:
                skipped.append(Skipped(relative + "/", "excluded"))
            elif sub in IGNORED_FOLDERS:
                skipped.append(Skipped(relative + "/", "tool or dependency folder"))
            elif (base / sub).is_symlink():
                skipped.append(Skipped(relative + "/", "symbolic link"))
            else:
                kept.append(sub)
        subfolders[:] = kept
        for file in sorted(files):
            path = base / file
            relative = file if relative_base == "." else f"{relative_base}/{file}"
            try:
                relative.encode("utf-8")
                info = path.lstat()
            except UnicodeEncodeError:
                skipped.append(Skipped(os.fsencode(relative).decode("utf-8", "replace"), "name not UTF-8"))
                continue
            except OSError as exc:
                skipped.append(Skipped(relative, f"unreadable: {exc.strerror}"))
                continue
            mode = info.st_mode
            if relative in excluded:
                skipped.append(Skipped(relative, "excluded"))
            elif file in IGNORED_FOLDERS:  # a worktree's `.git` is a file
                skipped.append(Skipped(relative, "tool or dependency folder"))
            elif stat.S_ISLNK(mode):
                skipped.append(Skipped(relative, "symbolic link"))
            elif not stat.S_ISREG(mode):
                skipped.append(Skipped(relative, "not a regular file"))
            elif info.st_size > MAX_FILE_BYTES:
                skipped.append(Skipped(relative, f"over {MAX_FILE_BYTES // 1024} KiB"))
            else:
                yield path, relative


def _parse(path: Path, relative: str) -> ParsedFile | Skipped:
    suffix = path.suffix.lower()
    if suffix == ".epub":
        try:
            return epub.parse(path)
        except Exception as exc:  # noqa: BLE001 - ebooklib raises anything on a broken zip or package
            return Skipped(relative, f"unreadable EPUB: {exc}")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)  # the size seen when listed may have grown since
    except OSError as exc:
        return Skipped(relative, f"unreadable: {exc.strerror}")
    if len(data) > MAX_FILE_BYTES:
        return Skipped(relative, f"over {MAX_FILE_BYTES // 1024} KiB")
    if b"\0" in data[:8192]:
        return Skipped(relative, "binary")
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        return Skipped(relative, "not UTF-8 text")
    if suffix in _MARKDOWN:
        return markdown.parse(source)
    if suffix == ".py":
        try:
            return python_code.parse(source)
        except SyntaxError as exc:
            return Skipped(relative, f"Python syntax error line {exc.lineno}: {exc.msg}")
        except RecursionError:
            return Skipped(relative, "Python nested too deeply to parse")
    if suffix in _CODE:
        try:
            return tree_sitter_code.parse(source, _CODE[suffix])
        except RecursionError:
            return Skipped(relative, f"{_CODE[suffix]} nested too deeply to parse")
    return ParsedFile(language=_TEXT_LANGUAGES.get(suffix), text=source)


def _over_limits(relative: str, file: ParsedFile) -> str | None:
    """Why the file's records would not fit every engine (a path or id, a word), else None."""
    ids = [relative, *(f"{relative}#{piece.name}" for piece in file.pieces)]
    if (longest := max(len(i.encode("utf-8")) for i in ids)) > MAX_PATH_BYTES:
        return f"a path or symbol id of {longest} bytes, over {MAX_PATH_BYTES}"
    texts = [file.text, file.doc, *(f"{p.name} {p.title} {p.text}" for p in file.pieces)]
    words = (w for text in texts for w in _WORD.findall(text))
    if (word := max(words, key=len, default="")) and len(word) > MAX_WORD_CHARS:
        return f"a word of {len(word)} characters, over {MAX_WORD_CHARS}"
    return None


def _records(parsed: dict[str, ParsedFile], folders: set[str]) -> list[ProjectRecord]:
    """Folders, then each file followed by its pieces, with call names resolved to symbol ids."""
    records: list[ProjectRecord] = []
    children: dict[str, list[str]] = {}
    for path in [*folders, *parsed]:
        parent = str(PurePosixPath(path).parent)
        children.setdefault("" if parent == "." else parent, []).append(PurePosixPath(path).name)
    for folder in sorted(folders):
        parent = str(PurePosixPath(folder).parent)
        listing = ", ".join(sorted(children.get(folder, [])))
        records.append(
            ProjectRecord(
                folder,
                RecordKind.FOLDER,
                folder,
                PurePosixPath(folder).name,
                f"{folder}/: {listing}",
                parent=None if parent == "." else parent,
            )
        )
    ids = {path: _piece_ids(path, file) for path, file in parsed.items()}
    resolver = CallResolver(
        Symbol(piece_id, path, piece.name, piece.abstract)
        for path, file in parsed.items()
        for piece, piece_id in zip(file.pieces, ids[path][0], strict=True)
        if piece.kind is RecordKind.SYMBOL
    )
    for path, file in parsed.items():
        parent = str(PurePosixPath(path).parent)
        records.append(
            ProjectRecord(
                path,
                RecordKind.FILE,
                path,
                PurePosixPath(path).name,
                file_summary(path, file),
                parent=None if parent == "." else parent,
                language=file.language,
            )
        )
        own, by_name = ids[path]
        for piece, piece_id in zip(file.pieces, own, strict=True):
            owner = piece.name.split("~", 1)[0].rpartition(".")[0] if piece.receiver else ""
            calls, external, sites = resolver.resolve(path, piece.calls, owner, piece.receiver)
            records.append(
                ProjectRecord(
                    piece_id,
                    piece.kind,
                    path,
                    piece.title,
                    piece.text,
                    parent=by_name.get(piece.parent or "", path),
                    language=file.language,
                    calls=calls,
                    line=piece.line,
                    external_calls=external,
                    call_sites=sites,
                )
            )
    return records


def _piece_ids(path: str, file: ParsedFile) -> tuple[list[str], dict[str, str]]:
    """`path#name` per piece, `~line` added to a name met again (a redefinition); and each name's
    first id, which parent links use."""
    own: list[str] = []
    by_name: dict[str, str] = {}
    for position, piece in enumerate(file.pieces):
        piece_id = f"{path}#{piece.name}"
        if piece_id in by_name.values():
            piece_id = f"{piece_id}~{piece.line if piece.line is not None else position}"
        own.append(piece_id)
        by_name.setdefault(piece.name, piece_id)
    return own, by_name
