"""What a Markdown report did not write itself (suite, case, memory, system and file names, reasons,
errors) escaped before it goes in: rendered by a CommonMark renderer, a name such as
`<img src=x onerror=...>` would be HTML that runs script, and `[x](...)` or `**x**` would be markup."""

from __future__ import annotations

import re

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_PUNCTUATION = "\\`*_[]~|#!"
"""Backslash-escaped: emphasis, code, links and images, strikethrough, table cells, headings."""


def _one_line(value: object) -> str:
    return re.sub(r"\r\n|[\r\n]", " ", str(value))


def md(value: object) -> str:
    """`value` as literal inline text: `<`, `>`, `&` as entities (no raw HTML in any renderer), Markdown's
    punctuation backslash-escaped, line breaks as spaces (a value never starts a block of its own)."""
    return "".join(_ENTITIES.get(c) or ("\\" + c if c in _PUNCTUATION else c) for c in _one_line(value))


def md_code(value: object) -> str:
    """`value` as a code span: fenced by more backticks than it holds in a row, so it cannot close
    the span early (inside a span nothing is markup or HTML)."""
    text = _one_line(value)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"


def md_fenced(lines: list[str]) -> list[str]:
    """`lines` as a fenced code block whose fence no line can close (more backticks than any holds in
    a row); a line break inside a line becomes a space."""
    flat = [_one_line(line) for line in lines]
    fence = "`" * max([3, *(len(run) + 1 for line in flat for run in re.findall(r"`+", line))])
    return [fence, *flat, fence]
