"""The structural report of an ingested project: what became records, what links them, and
what was left out and why, so an ingestion can be checked before anything is searched."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from harness.models.project import Project, RecordKind


@dataclass(frozen=True, slots=True)
class Structure:
    records: int
    kinds: dict[str, int]
    languages: dict[str, int]
    """Files per language (`text` for files of no known language)."""
    parent_links: int
    call_edges: int
    routes: int
    skipped: dict[str, str]
    """Path -> why it was skipped."""

    def to_json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "kinds": self.kinds,
            "languages": self.languages,
            "parent_links": self.parent_links,
            "call_edges": self.call_edges,
            "routes": self.routes,
            "skipped": self.skipped,
        }

    def lines(self) -> list[str]:
        """Plain lines for a report or a terminal."""
        out = [
            f"records: {self.records} ({', '.join(f'{kind} {n}' for kind, n in self.kinds.items())})",
            f"files by language: {', '.join(f'{language} {n}' for language, n in self.languages.items()) or 'none'}",
            f"edges: {self.parent_links} parent links, {self.call_edges} call edges, {self.routes} routes",
            f"skipped: {len(self.skipped)}",
        ]
        out.extend(f"  {path}: {reason}" for path, reason in self.skipped.items())
        return out


def structure(project: Project) -> Structure:
    kinds = Counter(r.kind.value for r in project.records)
    languages = Counter(r.language or "text" for r in project.records if r.kind is RecordKind.FILE)
    return Structure(
        records=len(project.records),
        kinds={kind.value: kinds[kind.value] for kind in RecordKind if kinds[kind.value]},
        languages=dict(sorted(languages.items())),
        parent_links=sum(1 for r in project.records if r.parent is not None),
        call_edges=sum(len(r.calls) for r in project.records),
        routes=kinds[RecordKind.ROUTE.value],
        skipped={s.path: s.reason for s in project.skipped},
    )
