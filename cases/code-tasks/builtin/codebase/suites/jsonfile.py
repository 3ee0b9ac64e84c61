"""Reading JSON case files so that every failure names the file, the case and the field."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from harness.errors import CaseFileError
from harness.files import NotReadable, read_bounded

M = TypeVar("M", bound=BaseModel)


MAX_FILE_BYTES = 64 * 2**20
"""Largest suite file read (64 MiB): suites are hand-written or imported fixtures, far below it."""


def read_text(path: Path, kind: str = "JSON") -> str:
    """One suite file's text: a regular file (a FIFO would block, a device never ends), UTF-8, bounded."""
    try:
        data = read_bounded(path, MAX_FILE_BYTES)
    except NotReadable as exc:
        message = str(exc)
        if message == "no such file":
            raise CaseFileError.missing(path, message) from None
        if message == "not a regular file":
            message += f" (a suite file must be a plain {kind} file)"
        elif message.endswith(f"limit of {MAX_FILE_BYTES} bytes"):
            message = message.replace("the limit", "the suite file limit")
        raise CaseFileError(path, message) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CaseFileError(path, f"not UTF-8: byte {exc.start} cannot be decoded ({exc.reason})") from None


def read_json(path: Path) -> Any:
    """Parse one JSON suite file (read as `read_text` reads it)."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CaseFileError(path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise CaseFileError(path, "JSON nested too deeply to read") from None


def _location(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def describe(exc: ValidationError, prefix: str = "") -> tuple[str | None, str]:
    """(field path, message) of a validation error's first problem."""
    error = exc.errors()[0]
    field = _location([*([prefix] if prefix else []), *error["loc"]]) or None
    return field, (error["msg"] if error["type"] != "extra_forbidden" else "unknown field")


def validate(model: type[M], raw: Any, path: Path, *, case_id: str | None = None, prefix: str = "") -> M:
    """Validate one record; report the first error as `file: case 'x': field.path: message`."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc, prefix)
        raise CaseFileError(path, message, case_id=case_id, field=field) from None


def validate_records(
    model: type[M], raw: Any, path: Path, id_of: Callable[[Any], str | None], prefix: str = ""
) -> list[M]:
    if not isinstance(raw, list):
        raise CaseFileError(path, f"expected a JSON array, got {type(raw).__name__}", field=prefix or None)
    out = []
    for position, item in enumerate(raw):
        case_id = id_of(item) if isinstance(item, dict) else None
        out.append(
            validate(model, item, path, case_id=case_id, prefix=f"{prefix}[{position}]" if case_id is None else "")
        )
    return out
