"""Query clean-up before the text search, as Tenure's `queryExpander.ts` does it.

Tenure searches a cleaned copy of the user's message, not the message: code blocks, inline code,
paths, URLs, markup, hex ids, numbers and trailing punctuation are stripped, and the result is cut
to 1,000 characters; a message under 16 characters is searched as it is. From HEAD on, lines that
look like code are dropped too, and a message whose prose is left under 16 characters is searched
by its programming language's name (from a fenced block's tag or the code's syntax) or not at all.
The patterns are Tenure's, in Python's syntax (JavaScript's `\\w`, `\\d` and `\\b` are ASCII).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class QueryCleanup(StrEnum):
    NONE = "none"
    STRIP_NOISE = "strip noise"
    """Tenure at the paper tag."""
    STRIP_CODE_AND_NOISE = "drop code lines, strip noise, fall back to the code's language"
    """Tenure at HEAD."""


MAX_QUERY_CHARS = 1000
MIN_RAW_CHARS = 16
_FILES = "ts|js|py|json|toml|yaml|yml|md|txt|csv"

_STRIP_PATTERNS = [
    re.compile(r"^```[\s\S]*?```", re.M),
    re.compile(r"^~~~[\s\S]*?~~~", re.M),
    re.compile(r"^(?: {4}|\t).+$", re.M),
    re.compile(rf"\[.+?\.({_FILES}|pdf|png|jpg|jpeg|svg)\]", re.I),
    re.compile(rf"<.+?\.({_FILES}|pdf|png|jpg|jpeg|svg)>", re.I),
    re.compile(rf"(?:^|\s)(?:\.{{0,2}}/[\w/-]+\.(?:{_FILES})|[\w-]+/[\w/-]+\.(?:{_FILES}))\b", re.I | re.A),
    re.compile(r"^\s+at\s+.+$", re.M),
    re.compile(r"https?://[^\s]+"),
    re.compile(r"`[^`]+`"),
    re.compile(r"^#{1,6}\s+", re.M),
    re.compile(r"\*{1,2}([^*]+)\*{1,2}"),
    re.compile(r"_{1,2}([^_]+)_{1,2}"),
    re.compile(r"<[^>]+>"),
    re.compile(r"\b[0-9a-f]{8,}\b", re.I | re.A),
    re.compile(r"\b\d+\b", re.A),
    re.compile(r"[?!.,;:]+(?=\s|\Z)"),
]
_FENCED = re.compile(r"```[\s\S]*?```|~~~[\s\S]*?~~~")
_CODE_LINE = re.compile(
    r"^\s*(const|let|var|function|class|import|export|default|return|async|await|if|else|for|while|switch|"
    r"try|catch|def |class |from \w+ import|fn |impl |use std::|package |func |:=|//|#!?[^\s]|/\*|\*/?\s)",
    re.A,
)
_FENCE_LANGUAGE = re.compile(r"^```(\w+)", re.M | re.A)
_SYNTAX = [
    ("rust", re.compile(r"\b(fn |impl |use std::|let mut )", re.A)),
    ("go", re.compile(r"\b(func |package main|:= )", re.A)),
    ("python", re.compile(r"^\s*(def |from \w+ import|if __name__)", re.M | re.A)),
    ("typescript", re.compile(r":\s*(string|number|boolean|void)\b|interface \w+", re.A)),
    ("javascript", re.compile(r"\b(const|let|var|=>|async function)\b", re.A)),
    ("java", re.compile(r"\b(public class|void main|System\.out)\b", re.A)),
    ("swift", re.compile(r"\b(func |var |let )\b.*\{", re.A)),
]
_LANGUAGE_TERMS = {
    "typescript": "TypeScript",
    "javascript": "JavaScript",
    "python": "Python",
    "rust": "Rust",
    "go": "Go",
    "java": "Java",
    "ruby": "Ruby",
    "swift": "Swift",
    "kotlin": "Kotlin",
    "cpp": "C++",
    "csharp": "C#",
    "php": "PHP",
    "shell": "shell",
    "bash": "bash",
    "sql": "SQL",
}


@dataclass(frozen=True, slots=True)
class _Segment:
    code: bool
    text: str


def clean_query(message: str, how: QueryCleanup) -> str:
    """The text Tenure's search would be given for `message` ("" when it searches nothing)."""
    if how is QueryCleanup.NONE:
        return message
    raw = message.strip()
    if len(raw) < MIN_RAW_CHARS:
        return raw
    if how is QueryCleanup.STRIP_NOISE:
        return _strip_noise(raw)[:MAX_QUERY_CHARS]
    segments = _fenced_segments(raw)
    working = segments if any(s.code for s in segments) else _code_line_segments(raw)
    prose = " ".join(s.text for s in working if not s.code).strip()
    cleaned = _strip_noise(prose or raw)
    if len(cleaned) < MIN_RAW_CHARS:
        code = next((s.text for s in working if s.code), raw)
        return _LANGUAGE_TERMS.get(_language(code) or "", "")
    return cleaned[:MAX_QUERY_CHARS]


def _strip_noise(text: str) -> str:
    for pattern in _STRIP_PATTERNS:
        text = pattern.sub(" ", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def _fenced_segments(raw: str) -> list[_Segment]:
    segments, last = [], 0
    for match in _FENCED.finditer(raw):
        if match.start() > last:
            segments.append(_Segment(False, raw[last : match.start()]))
        segments.append(_Segment(True, match.group(0)))
        last = match.end()
    if last < len(raw):
        segments.append(_Segment(False, raw[last:]))
    return segments


def _code_line_segments(raw: str) -> list[_Segment]:
    """Consecutive lines of the same kind (code-like or prose) form one segment."""
    segments: list[_Segment] = []
    for line in raw.split("\n"):
        code = bool(_CODE_LINE.match(line))
        if segments and segments[-1].code == code:
            segments[-1] = _Segment(code, f"{segments[-1].text}\n{line}")
        else:
            segments.append(_Segment(code, line))
    return segments


def _language(code: str) -> str | None:
    fence = _FENCE_LANGUAGE.search(code)
    if fence:
        return fence.group(1).lower()
    return next((name for name, syntax in _SYNTAX if syntax.search(code)), None)
