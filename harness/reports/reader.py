"""The one way every command reads a run report's JSON file (`merge`, `compare`, `leaderboard`,
`report render|diff|open`), since reports may come from anyone: bounded before parsing (a file over
`MAX_BYTES` is refused by its size, unread; nesting deeper than `MAX_DEPTH` is refused by a scan of
the raw bytes, so the parser never recurses into it), strict JSON (no `NaN`), the envelope checked
against its schema (`schema.py`), and the checksum its run wrote verified. Whatever does not fit is
a `HarnessError`: one line naming the file, exit 2.

The checksum (sha256 of the rest, `document.checksum`) tells a report as its run wrote it from one
edited, truncated or pieced together since; it is no signature: anyone can recompute it. A report
that does not match, or has none, is refused unless the reader allows edited reports
(`--allow-edited`); then it is read with `edited` saying why, and the command marks it.

A report from before the envelope's `rules` is migrated once its checksum is checked (`migrated`):
it gets the record of the ruleset its kind wrote in its own field, so every command reads one.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ijson
from pydantic import ValidationError

from harness.errors import HarnessError
from harness.files import NotReadable, read_bounded
from harness.models.rulesets import HARNESS, rules_record
from harness.reports.document import checksum
from harness.reports.fields import CHECKSUM
from harness.reports.schema import EnvelopePart
from harness.suites.jsonfile import describe
from harness.suites.jsonstream import BUFFER_BYTES, DepthLimited

MAX_BYTES = 64 * 2**20
"""Largest report read by default (64 MiB): a LongMemEval or LoCoMo run's report is a few MiB."""
MAX_BYTES_ENV = "HARNESS_REPORT_MAX_BYTES"
"""Where a user raises it."""
MAX_DEPTH = 64
"""Deepest nesting read; a report nests about ten levels."""
EDITED_MARK = "EDITED"
"""How a command marks a report read with `--allow-edited` whose checksum does not vouch for it."""


class NotAReport(HarnessError):
    """A file that is not a run report this harness can read (unreadable, not JSON, not the envelope)."""


class EditedReport(HarnessError):
    """A run report its checksum does not vouch for: edited since its run wrote it, or written without one."""


@dataclass(frozen=True)
class ReadReport:
    """A run report as read: its document, and why its checksum does not vouch for it (None: it does)."""

    path: Path
    document: dict[str, Any]
    edited: str | None = None


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse(path: Path, max_bytes: int = MAX_BYTES) -> Any:
    """The JSON value in `path`, read within the limits (any JSON: `report render` also reads
    reports from before the envelope)."""
    try:
        data = read_bounded(path, max_bytes)
    except NotReadable as exc:
        raise NotAReport(f"{path}: {exc}") from None
    scan = DepthLimited(io.BytesIO(data), MAX_DEPTH)
    try:
        while scan.read(BUFFER_BYTES):
            pass
    except ijson.JSONError as exc:
        raise NotAReport(f"{path}: not a harness run report ({exc})") from None
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_constant)
    except UnicodeDecodeError as exc:
        raise NotAReport(f"{path}: not UTF-8: byte {exc.start} cannot be decoded") from None
    except json.JSONDecodeError as exc:
        raise NotAReport(f"{path}: not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:
        raise NotAReport(f"{path}: not a harness run report ({exc})") from None


def has_envelope(document: Any) -> bool:
    """Whether a JSON value claims to be a run report with an envelope (an object naming its `kind`)."""
    return isinstance(document, dict) and "kind" in document


@dataclass(frozen=True)
class Reader:
    """How a command reads run reports: within what size, and whether it lets edited ones through."""

    max_bytes: int = MAX_BYTES
    allow_edited: bool = False
    remedy: str = f"--allow-edited reads it, marked {EDITED_MARK}"
    """What the one line refusing an edited report tells the user to do."""

    @classmethod
    def of(cls, environ: Mapping[str, str], *, allow_edited: bool = False) -> Reader:
        """The reader a command uses: `MAX_BYTES`, or `HARNESS_REPORT_MAX_BYTES` where set (checked: exit 2)."""
        text = environ.get(MAX_BYTES_ENV, "").strip()
        if not text:
            return cls(allow_edited=allow_edited)
        if not text.isdigit() or int(text) < 1:
            raise HarnessError(f"{MAX_BYTES_ENV}={text!r}: expected a whole number of bytes >= 1")
        return cls(int(text), allow_edited)

    def read(self, path: Path) -> ReadReport:
        """`path`'s run report, its envelope checked and its checksum verified."""
        return self.checked(path, parse(path, self.max_bytes))

    def checked(self, path: Path, document: Any) -> ReadReport:
        """A parsed document as a run report (`read` after `parse`)."""
        if not has_envelope(document):
            raise NotAReport(f"{path}: not a harness run report (no report envelope)")
        read = migrated(document)
        try:
            EnvelopePart.model_validate(read)
        except ValidationError as exc:
            field, message = describe(exc)
            where = f"{field}: " if field else ""
            raise NotAReport(f"{path}: not a harness run report: {where}{message}") from None
        edited = _unvouched(document)
        if edited is not None and not self.allow_edited:
            raise EditedReport(f"{path}: {edited}: {self.remedy}")
        return ReadReport(path, read, edited)


def _unvouched(document: dict[str, Any]) -> str | None:
    if CHECKSUM not in document:
        return "no checksum (written by an older harness, or edited)"
    if document[CHECKSUM] != checksum(document):
        return "edited since the harness wrote it (its checksum does not match)"
    return None


RULES_BEFORE = {"beliefs": "system-provides-tiers", "conversation": "strict"}
"""The ruleset a kind's reports were made under when they named none (any other kind: the harness's)."""
RULESET = "ruleset"
"""Where a lifecycle body names its ruleset now; before the envelope's `rules` it was the body's `rules`."""


def migrated(document: dict[str, Any]) -> dict[str, Any]:
    """A report from before the envelope's `rules`, given the record of the ruleset its kind wrote
    in a field of its own (a belief report's `meta.context_rules`, a dataset report's
    `dataset_rules`, a conversation report's `turn_rules`, a code-task report's `settings.rules`,
    a lifecycle report's body `rules`, which becomes its `ruleset`); one naming none was made under
    its kind's rules of the time (`RULES_BEFORE`). Any other report is returned as read."""
    if isinstance(document.get("rules"), Mapping):
        return document
    moved = {**document}
    own = moved.pop("rules", None)
    if isinstance(own, str):
        moved[RULESET] = own
    meta, settings = document.get("meta"), document.get("settings")
    named = [
        meta.get("context_rules") if isinstance(meta, Mapping) else None,
        document.get("dataset_rules"),
        document.get("turn_rules"),
        own,
        settings.get("rules") if isinstance(settings, Mapping) else None,
    ]
    name = next((n for n in map(_name, named) if n is not None), None)
    moved["rules"] = rules_record(name or RULES_BEFORE.get(str(document["kind"]), HARNESS)).to_json()
    return moved


def _name(field: Any) -> str | None:
    if isinstance(field, str):
        return field
    if isinstance(field, Mapping) and isinstance(field.get("name"), str):
        return str(field["name"])
    return None
