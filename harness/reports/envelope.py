"""The report envelope: what every report says about its run (`fields.FIELDS`), written by the
runner around the body a kind writes, so every kind's report is read, merged, compared and gated alike.

A report is written as `<stem>[-shard<I>of<N>][-incomplete]-<UTC time>.<ext>`; only a complete,
unsharded run refreshes `<stem>-latest.<ext>`, so nothing partial is ever mistaken for a whole run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from harness import __version__
from harness.models.rulesets import HARNESS, RulesRecord, rules_record
from harness.models.scoresheet import sheet_json
from harness.reports.banners import banners, markdown_banners
from harness.reports.categories import category_markdown
from harness.reports.document import Report, RunInfo, Scorecard, sealed
from harness.reports.escape import md
from harness.reports.fields import CHECKSUM, FIELDS
from harness.reports.html.child import page_apart
from harness.reports.metadata import file_digest, git_commit
from harness.reports.writer import report_json, write_or_rescue
from harness.suites.public import placement
from harness.systems.protocol import REFERENCE, file_key


class Reported(Protocol):
    """What the envelope reads of a kind (a `CaseKind` is one): its name, baseline suite, unit and input files."""

    @property
    def name(self) -> str: ...

    @property
    def baseline_suite(self) -> str | None: ...

    @property
    def unit(self) -> str: ...

    def inputs(self) -> Sequence[Path]: ...


def inputs_json(paths: Sequence[Path]) -> list[dict[str, str]]:
    return [{"path": str(p), "sha256": file_digest(p)} for p in paths if p.is_file()]


@dataclass(frozen=True)
class Envelope:
    """One report's envelope, before its files have names."""

    fields: Mapping[str, Any]
    unit: str

    @classmethod
    def of(
        cls,
        kind: Reported,
        run: RunInfo,
        report: Report,
        origin: Mapping[str, Any],
        view: Mapping[str, Any] | None = None,
        rules: RulesRecord | None = None,
    ) -> Envelope:
        """`view`: what the kind's spec declares for readers (`evaluation.view`; None: a kind no spec
        declares); `rules`: the ruleset its numbers were made under (None: the harness's own)."""
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
                "view": None if view is None else dict(view),
                "rules": (rules or rules_record(HARNESS)).to_json(),
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
        """The report as shown, whatever the kind: its Markdown opens with the system under test (other
        than the reference), the run's banners (`banners`) and the public suite its files are, or why
        a suite it resembles is another, and ends with its scores per category; a kind not
        applicable to the system shows its banner alone, as nothing ran. The scorecard's caption
        says the same."""
        report = self._of_public(report)
        system, skipped = self.fields["system"]["name"], self.fields["not_applicable"]
        card = report.scorecard
        named = [] if system == REFERENCE else [f"system: {system}"]
        caption = [f"INCOMPLETE: {self.fields['incomplete_reason']}"] if self.incomplete else []
        caption += [*named, *([f"NOT APPLICABLE: {skipped}"] if skipped else []), *card.caption]
        head, sep, rest = report.markdown.partition("\n")
        if not (sep and head.startswith("#")):
            head, rest = "", report.markdown
        body = [] if skipped else [rest.strip("\n"), "", *category_markdown(self.fields["scores"])]
        top = [head, ""] if head else []
        top += [*(f"> {md(line)}" for line in named), *([""] if named else [])]
        top += markdown_banners(banners(self.fields, self.unit))
        markdown = "\n".join([*top, *body]).rstrip("\n") + "\n"
        title = card.title if system == REFERENCE else f"{card.title}, system {system}"
        return replace(report, scorecard=Scorecard(title, card.columns, card.rows, tuple(caption)), markdown=markdown)

    def _of_public(self, report: Report) -> Report:
        """A line under the Markdown's title per public suite the run's files are (by their sha256),
        and per one they resemble but are not (a changed file, a subset): `suites/public.py`."""
        placed = placement(self.fields)
        lines = [
            f"Public suite: {s.title}, its files as published"
            + (f" at {s.commit[:12]}" if s.commit else "")
            + " (by their sha256)."
            for s in placed.suites
        ]
        lines += [f"Public suite: {note}." for note in (*placed.caveats, *placed.notes)]
        if not lines:
            return report
        head, sep, rest = report.markdown.partition("\n")
        said = "\n".join(f"> {md(line)}" for line in lines)
        markdown = f"{head}\n\n{said}\n{rest}" if sep and head.startswith("#") else f"{said}\n\n{report.markdown}"
        return replace(report, markdown=markdown)


def write_report(
    out: Path, envelope: Envelope, report: Report, *, latest: bool = True, page: Callable[[str], str] | None = None
) -> tuple[list[Path], str, Report]:
    """Write the report's JSON, Markdown and HTML page; returns their paths, their stem and the report as shown.
    Only a complete, unsharded report becomes `-latest`, and only when `latest` (a merge on a lost backend is not).
    `page`: what draws the page from the JSON text (a run's `page_process`; by default a child started now)."""
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
