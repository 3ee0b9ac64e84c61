"""How `compare` and the leaderboard show a report's system: the name and version it declares, with
where it is (an HTTP service's URL) as a detail, and the reference pipeline as such. The name
reports are keyed by (`system_of`: `http:URL` for a service) is what `--system` takes, not what a
reader knows the system as.

Read from the envelope's `system` as any report wrote it: one from before `declared_name` shows its
`name` (a service's `http:URL`), one from before `system` is the reference pipeline at the
harness's version."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.reports.document import system_of
from harness.systems.http import PREFIX
from harness.systems.protocol import REFERENCE, REFERENCE_NAME

UNKNOWN = "unknown"
"""The version a system that declares none is recorded with (a bare wrapper's): not shown."""


@dataclass(frozen=True, slots=True)
class SystemLabel:
    name: str
    version: str | None
    detail: str | None
    """Where the system is, when its name does not say it (an HTTP service's URL)."""

    @property
    def text(self) -> str:
        """`name version (detail)`, as a table cell."""
        shown = self.name + (f" {self.version}" if self.version else "")
        return shown + (f" ({self.detail})" if self.detail else "")


def system_label(report: Mapping[str, Any]) -> SystemLabel:
    """The system a report is of, as it declares itself."""
    system = report.get("system")
    key = system_of(report)
    if not isinstance(system, Mapping):
        return SystemLabel(REFERENCE_NAME, _version(report.get("harness_version")), None)
    declared = system.get("declared_name")
    version = _version(system.get("version"))
    if key == REFERENCE:
        return SystemLabel(str(declared or REFERENCE_NAME), version, None)
    if not isinstance(declared, str) or not declared or declared == key:
        return SystemLabel(key, version, None)
    return SystemLabel(declared, version, key.removeprefix(PREFIX))


def _version(value: Any) -> str | None:
    return None if value in (None, "", UNKNOWN) else str(value)
