"""Deterministic summaries, no model: the project overview record and per-file summaries.

The overview is what an agent reads first about a project: the README's lead, the dependencies
its manifests declare, the top-level layout and the documents' headings. A code file's summary
is its module docstring and one line per symbol (signature and the first line of its doc); a
document's is its lead and its headings."""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from harness.models.project import RecordKind
from harness.suites.projects.parsed import ParsedFile

LEAD_CHARS = 1200
"""The README lead is cut at the paragraph that would pass this length."""
MAX_HEADINGS = 60
"""Headings listed in the overview, in path order (a large documentation tree is cut there)."""
_README = re.compile(r"^readme(\.(md|markdown|rst|txt))?$", re.IGNORECASE)
_GO_REQUIRE = re.compile(r"^\s*(?:require\s+)?([\w.\-]+/[\w.\-/]+)\s+(v[\w.\-+]+)", re.MULTILINE)


def file_summary(path: str, parsed: ParsedFile) -> str:
    """What a file's record says about it: its lead or docstring, then one line per piece."""
    lines = [f"{path}" + (f" ({parsed.language})" if parsed.language else "")]
    if parsed.doc:
        lines.append(parsed.doc)
    for piece in parsed.pieces:
        if piece.kind is RecordKind.SECTION:
            depth = piece.name.count("/")
            lines.append(f"{'  ' * depth}- {piece.title}")
        else:
            doc = piece.doc.strip().splitlines()[0] if piece.doc.strip() else ""
            lines.append(f"- {piece.signature}" + (f" — {doc}" if doc else ""))
    return "\n".join(lines) if parsed.pieces or parsed.doc else parsed.text


def overview(name: str, files: Mapping[str, ParsedFile], texts: Mapping[str, str]) -> str:
    """The overview record's text from the parsed files (by path) and the raw text of the
    manifests and README (by path)."""
    parts = [f"Project {name}"]
    readme = _readme(files)
    if readme is not None:
        parts.append(f"README ({readme}):\n{_lead(files[readme])}")
    dependencies = _dependencies(texts)
    if dependencies:
        parts.append("Dependencies:\n" + "\n".join(dependencies))
    parts.append("Layout:\n" + "\n".join(_layout(files)))
    headings = [
        f"{path}: {piece.title}"
        for path, parsed in sorted(files.items())
        if parsed.language == "markdown"
        for piece in parsed.pieces
        if piece.name.count("/") <= 1  # a document's titles and their first level below
    ]
    if headings:
        cut = len(headings) - MAX_HEADINGS
        parts.append("Headings:\n" + "\n".join(headings[:MAX_HEADINGS]) + (f"\n... and {cut} more" if cut > 0 else ""))
    return "\n\n".join(parts)


MANIFESTS = frozenset({"pyproject.toml", "package.json", "go.mod"})


def _readme(files: Mapping[str, ParsedFile]) -> str | None:
    top = sorted(path for path in files if "/" not in path and _README.match(path))
    return top[0] if top else None


def _lead(parsed: ParsedFile) -> str:
    """The README's text up to its second heading, cut at a paragraph near `LEAD_CHARS`."""
    text = "\n\n".join(part for part in (parsed.doc, parsed.pieces[0].text if parsed.pieces else "") if part)
    if not parsed.pieces and parsed.text:
        text = parsed.text
    kept: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        if kept and sum(len(p) for p in kept) + len(paragraph) > LEAD_CHARS:
            break
        kept.append(paragraph.strip())
    return "\n\n".join(kept)[: LEAD_CHARS * 2]


def _dependencies(texts: Mapping[str, str]) -> list[str]:
    """`path: name, name, ...` per manifest that parses; one that does not is named as such."""
    lines = []
    for path, text in sorted(texts.items()):
        kind = PurePosixPath(path).name
        if kind not in MANIFESTS:
            continue
        try:
            names = _manifest_names(kind, text)
        except (ValueError, tomllib.TOMLDecodeError):
            lines.append(f"{path}: (not parseable)")
            continue
        if names:
            lines.append(f"{path}: {', '.join(names)}")
    return lines


def _manifest_names(kind: str, text: str) -> list[str]:
    if kind == "pyproject.toml":
        project = tomllib.loads(text).get("project", {})
        declared = list(project.get("dependencies", []))
        for extra, requirements in sorted(project.get("optional-dependencies", {}).items()):
            declared.extend(f"{r} [{extra}]" for r in requirements)
        return [str(d) for d in declared]
    if kind == "package.json":
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("package.json is not an object")
        return [
            f"{package} {version}" + (" [dev]" if section == "devDependencies" else "")
            for section in ("dependencies", "devDependencies", "peerDependencies")
            for package, version in sorted((data.get(section) or {}).items())
        ]
    module = re.search(r"^module\s+(\S+)", text, re.MULTILINE)
    names = [f"{m} {v}" for m, v in _GO_REQUIRE.findall(text)]
    return ([f"module {module[1]}"] if module else []) + names


def _layout(files: Mapping[str, ParsedFile]) -> Sequence[str]:
    """Each top-level entry: a folder with its file count and languages, or a file."""
    folders: Counter[str] = Counter()
    languages: dict[str, Counter[str]] = {}
    entries: list[str] = []
    for path, parsed in sorted(files.items()):
        top, _, rest = path.partition("/")
        if not rest:
            entries.append(top)
            continue
        folders[top] += 1
        languages.setdefault(top, Counter())[parsed.language or "text"] += 1
    for folder in sorted(folders):
        kinds = ", ".join(f"{language} {n}" for language, n in languages[folder].most_common())
        entries.append(f"{folder}/ ({folders[folder]} files: {kinds})")
    return sorted(entries)
