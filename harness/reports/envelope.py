"""The report envelope: what every report says about its run, written by the runner around the
body a kind writes, so every kind's report is read, merged, compared and gated alike.

Fields: `kind` (its spec's name), `suite` (the name baselines key it by), `origin` (the `--suite`
arguments and options that built the kind, for `harness merge`), `inputs` (each file the items
were read from, with its sha256, as MTEB pins a dataset revision), `backend`, `modes`,
`unsupported_modes`, `settings` (what the scores depend on, as a baseline records them), `shard`,
`incomplete` (a bool) with `incomplete_reason`, `harness_version`, `git_commit`, `started_at`,
`wall_s`, `files` (the report's own file names) and `scores` (per mode, the score sheet baselines
and `harness compare` read). A body never uses these names, nor `checksum`: the last key of the
JSON file, the sha256 of everything before it, so `harness merge` refuses a report edited since.

A report is written as `<stem>[-shard<I>of<N>][-incomplete]-<UTC time>.<ext>`; only a complete,
unsharded run refreshes `<stem>-latest.<ext>`, so nothing partial is ever mistaken for a whole run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness import __version__
from harness.evaluation.kind import CaseKind, Report, RunInfo, Scorecard
from harness.models.scoresheet import sheet_json
from harness.reports.banners import incomplete_banner
from harness.reports.metadata import file_digest, git_commit
from harness.reports.writer import report_json, write_or_rescue
from harness.systems.protocol import REFERENCE, file_key
from harness.systems.reference import NATIVE

FIELDS = (
    "kind",
    "suite",
    "origin",
    "inputs",
    "backend",
    "modes",
    "unsupported_modes",
    "settings",
    "shard",
    "incomplete",
    "incomplete_reason",
    "harness_version",
    "git_commit",
    "started_at",
    "wall_s",
    "files",
    "scores",
    "system",
    "not_applicable",
)
SINCE_SYSTEMS = ("system", "not_applicable")
"""Envelope fields a report from before systems lacks (it is of the reference system)."""
REQUIRED = tuple(name for name in FIELDS if name not in SINCE_SYSTEMS)
"""The fields that make a JSON document a run report, whatever its age."""
TIMING = ("started_at", "wall_s", "files")
"""Envelope fields that differ between two runs of the same items (merge tests drop them)."""
CHECKSUM = "checksum"
"""The JSON file's last key: `checksum(document)` of the rest (an older report has none)."""


def checksum(document: Mapping[str, Any]) -> str:
    """sha256 of a report document without its `checksum`, as canonical JSON (sorted keys, no spaces),
    the same whether taken from the objects being written or from the JSON file read back."""
    rest = {key: value for key, value in document.items() if key != CHECKSUM}
    as_json = json.loads(json.dumps(rest, default=str))  # dates and paths as text, keys as strings
    canonical = json.dumps(as_json, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def sealed(document: Mapping[str, Any]) -> dict[str, Any]:
    """The document as its JSON file holds it: with its checksum last."""
    return {**document, CHECKSUM: checksum(document)}


def system_of(report: Mapping[str, Any]) -> str:
    """The system a report is of: a report from before systems is of the reference system."""
    return str((report.get("system") or {}).get("name", REFERENCE))


def defaulted(report: Mapping[str, Any], name: str) -> Any:
    """An envelope field of a report, with what a report from before it existed means."""
    if name == "system" and report.get("system") is None:
        return NATIVE.to_json()
    return report.get(name)


def inputs_json(paths: Sequence[Path]) -> list[dict[str, str]]:
    return [{"path": str(p), "sha256": file_digest(p)} for p in paths if p.is_file()]


@dataclass(frozen=True)
class Envelope:
    """One report's envelope, before its files have names."""

    fields: Mapping[str, Any]
    unit: str

    @classmethod
    def of(cls, kind: CaseKind[Any], run: RunInfo, report: Report, origin: Mapping[str, Any]) -> Envelope:
        head = {
            "kind": kind.name,
            "suite": kind.baseline_suite,
            "origin": dict(origin),
            "inputs": inputs_json(kind.inputs()),
        }
        return cls(
            {
                **head,
                **run.envelope(),
                "settings": dict(report.settings),
                "harness_version": __version__,
                "git_commit": git_commit(),
                "scores": {mode: sheet_json(sheet) for mode, sheet in report.scores.items()},
            },
            kind.unit,
        )

    @property
    def incomplete(self) -> bool:
        return bool(self.fields["incomplete"])

    @property
    def shard(self) -> Mapping[str, Any] | None:
        return self.fields["shard"]

    def stem(self, body_stem: str) -> str:
        """The files' stem: a system other than the reference, a shard and an incomplete run say so in the name."""
        system = self.fields["system"]["name"]
        named = "" if system == REFERENCE else f"-{file_key(system)}"
        shard = f"-shard{self.shard['index']}of{self.shard['count']}" if self.shard else ""
        return f"{body_stem}{named}{shard}{'-incomplete' if self.incomplete else ''}"

    def document(self, body: Mapping[str, Any], files: Mapping[str, Path]) -> dict[str, Any]:
        """The report as its JSON file holds it: the envelope, then the body."""
        if clash := sorted(set(body) & {*FIELDS, CHECKSUM}):
            raise ValueError(f"a report body uses envelope field(s) {', '.join(clash)}")
        envelope = {**self.fields, "files": {ext: path.name for ext, path in files.items()}}
        return {name: envelope[name] for name in FIELDS} | dict(body)

    def framed(self, report: Report) -> Report:
        """The report as shown: an incomplete run's scorecard and Markdown say so, whatever the kind;
        so do a system other than the reference, and a kind not applicable to it."""
        report = self._of_system(report)
        if not self.incomplete:
            return report
        reason = self.fields["incomplete_reason"]
        card = report.scorecard
        caption = (f"INCOMPLETE: {reason}", *card.caption)
        banner = incomplete_banner({"incomplete": True, "incomplete_reason": reason}, self.unit)
        head, sep, rest = report.markdown.partition("\n")
        markdown = (
            f"{head}\n\n" + "\n".join(banner) + "\n" + rest.lstrip("\n")
            if sep and head.startswith("#")
            else "\n".join(banner) + "\n" + report.markdown
        )
        return replace(report, scorecard=Scorecard(card.title, card.columns, card.rows, caption), markdown=markdown)

    def _of_system(self, report: Report) -> Report:
        system, skipped = self.fields["system"]["name"], self.fields["not_applicable"]
        if system == REFERENCE:
            return report
        lines = [f"system: {system}"] + ([f"NOT APPLICABLE: {skipped}"] if skipped else [])
        card = report.scorecard
        head, sep, rest = report.markdown.partition("\n")
        said = "\n".join(f"> {line}" for line in lines)
        markdown = f"{head}\n\n{said}\n{rest}" if sep and head.startswith("#") else f"{said}\n\n{report.markdown}"
        return replace(
            report,
            scorecard=Scorecard(f"{card.title}, system {system}", card.columns, card.rows, (*lines, *card.caption)),
            markdown=markdown,
        )


def write_report(
    out: Path, envelope: Envelope, report: Report, *, latest: bool = True, page: Callable[[str], str] | None = None
) -> tuple[list[Path], str, Report]:
    """Write the report's JSON, Markdown and HTML page; returns their paths, their stem and the report as shown.
    Only a complete, unsharded report becomes `-latest`, and only when `latest` (a merge on a lost backend is not).
    `page`: what draws the page from the JSON text (a run's `page_process`; by default a child started now)."""
    from harness.reports.html.child import page_apart  # the page reads the envelope's FIELDS: imported here, not above

    draw = page or page_apart

    shown = envelope.framed(report)
    stem = envelope.stem(report.stem)
    written: dict[str, str] = {}

    def json_text(files: Mapping[str, Path]) -> str:
        written["json"] = report_json(sealed(envelope.document(report.data, files)))
        return written["json"]

    paths = write_or_rescue(
        out,
        stem,
        {
            "json": json_text,
            "md": shown.markdown,
            "html": lambda _: draw(written["json"]),  # drawn from the JSON just made, in a process of its own
        },
        latest=latest and not envelope.incomplete and envelope.shard is None,
    )
    return paths, stem, shown
