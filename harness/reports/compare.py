"""Side-by-side comparison of run reports of any kind: one row per report and mode, and, where two
runs of the same kind, suite and mode share items, whether they differ significantly on them.

Every report carries its score sheets in its envelope (`scores`) and its kind's main measures in its
`view`, so one table serves every kind, with no table of kind names. Two runs are compared item by item on the
items both scored (a case's score, else whether it passed as 1 or 0) with a paired randomization
test (`metrics.significance`), never by a raw difference against a tolerance.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.metrics.significance import ALPHA, Paired, paired_test
from harness.reports.document import Scorecard, system_of
from harness.reports.escape import md, md_code
from harness.reports.reader import EDITED_MARK, NotAReport, Reader
from harness.reports.tables import markdown_table
from harness.systems.protocol import REFERENCE

SHOWN_MEASURES = 4
"""Overall measures a row shows: its kind's main ones first, then the sheet's next ones (every one is
in the report)."""
BEFORE_VIEW: Mapping[str, tuple[str, ...]] = {
    "beliefs": ("pass_rate",),
    "haystack": ("recall_any@5", "mrr"),
    "code-tasks": ("recall",),
    "lifecycle": ("precision", "recall"),
    "conversation": ("pass_rate",),
}
"""Per built-in kind, the main measures its reports from before `view` did not carry."""


_TIMESTAMPED = re.compile(r".+-(\d{8}T\d{6}Z)(?:-(\d+))?\.json")
"""A report as the writer names it (`-2`, `-3`: later runs of the same second); not a `-latest` copy."""


def default_reports(out_dir: Path, reader: Reader) -> list[Path]:
    """The newest complete report of each kind, suite, backend and mode in the folder, oldest
    first. Not only the `-latest` copies: a run of one mode replaces its backend's `-latest`, and
    the other modes' newest rows are in earlier reports. Incomplete runs, shards and files that are
    no run report are left out; an edited report chosen is refused when it is read (`load_reports`)."""
    runs = sorted(
        (named.group(1), int(named.group(2) or 1), path)
        for path in out_dir.glob("*.json")
        if (named := _TIMESTAMPED.fullmatch(path.name)) is not None
    )
    scan = replace(reader, allow_edited=True)
    newest: dict[tuple[str, str, str, str, str], Path] = {}
    for *_, path in runs:
        try:
            data = scan.read(path).document
        except NotAReport:
            continue
        if data["incomplete"] or data["shard"] is not None:
            continue
        for mode in data["modes"]:
            newest[(data["kind"], str(data["suite"]), data["backend"]["backend"], system_of(data), mode)] = path
    chosen = set(newest.values())
    return [path for *_, path in runs if path in chosen]


@dataclass(frozen=True)
class Compared:
    """One report as `compare` reads it."""

    path: Path
    report: dict[str, Any]
    edited: str | None = None
    """Why its checksum does not vouch for it (read with `--allow-edited`); None: as its run wrote it."""

    @property
    def label(self) -> str:
        shard = self.report["shard"]
        part = f" shard {shard['index']}/{shard['count']}" if shard else ""
        marks = (" INCOMPLETE" if self.report["incomplete"] else "") + (f" {EDITED_MARK}" if self.edited else "")
        return f"{self.path.name}{part}{marks}"

    @property
    def mark(self) -> str:
        """What a row from this report carries after its first cell: an edited report's mark, else nothing."""
        return f" ({EDITED_MARK})" if self.edited else ""

    def values(self, mode: str) -> dict[str, float]:
        """Per item of the mode's sheet, its score, else 1 or 0 for passed or failed."""
        cases = self.report["scores"].get(mode, {}).get("cases", {})
        values = {}
        for item, case in cases.items():
            if case.get("score") is not None:
                values[item] = float(case["score"])
            elif case.get("passed") is not None:
                values[item] = 1.0 if case["passed"] else 0.0
        return values


def load_reports(paths: Sequence[Path], reader: Reader) -> list[Compared]:
    if not paths:
        raise HarnessError("no run reports to compare: run `harness run` first or name report files")
    reads = [reader.read(path) for path in paths]
    return [Compared(read.path, read.document, read.edited) for read in reads]


def main_measures(report: Mapping[str, Any], overall: Mapping[str, Any]) -> tuple[str, ...]:
    """The main measures the report's kind declares (`view.main`), as this sheet names them (with a
    dataset's level prefix); a kind that declares none has its sheet's first measure."""
    view = report.get("view")
    wanted = view.get("main") if isinstance(view, dict) else BEFORE_VIEW.get(str(report["kind"]))
    if not wanted:
        return tuple(list(overall)[:1])
    found = []
    for name in wanted:
        match = next((m for m in overall if m == name or re.fullmatch(rf"[^/]+/{re.escape(name)}", m)), None)
        found.append(match or name)
    return tuple(found)


def _shown(report: Mapping[str, Any], overall: Mapping[str, float]) -> str:
    """The kind's main measures, then the sheet's others, up to `SHOWN_MEASURES`."""
    names = [m for m in main_measures(report, overall) if m in overall]
    names += [m for m in overall if m not in names]
    return ", ".join(f"{name} {overall[name]:.3f}" for name in names[:SHOWN_MEASURES])


COLUMNS = ("kind", "suite", "backend", "mode", "items", "overall")


def _backend(report: dict[str, Any]) -> str:
    """The backend, and the system under test when it is not the reference system."""
    system = system_of(report)
    return report["backend"]["backend"] + ("" if system == REFERENCE else f" ({system})")


def table(reports: Sequence[Compared]) -> Scorecard:
    """One row per report and mode it scored."""
    rows = []
    for each in reports:
        r = each.report
        for mode, sheet in r["scores"].items():
            rows.append(
                [
                    r["kind"] + each.mark,
                    str(r["suite"]),
                    _backend(r),
                    mode,
                    str(len(sheet["cases"])),
                    _shown(r, sheet["overall"]),
                ]
            )
    caption = [f"from: {', '.join(each.label for each in reports)}"]
    return Scorecard("comparison", COLUMNS, rows, caption)


@dataclass(frozen=True)
class Difference:
    kind: str
    suite: str
    mode: str
    first: Compared
    second: Compared
    test: Paired

    def line(self) -> str:
        t = self.test
        verdict = f"significant (p < {ALPHA})" if t.significant else "not significant"
        return (
            f"{self.kind} {self.suite} {self.mode}: {self.first.label} vs {self.second.label} on {t.items} shared "
            f"items: mean {t.mean_first:.4f} -> {t.mean_second:.4f} ({t.difference:+.4f}), "
            f"paired randomization p = {t.p_value:.4f}: {verdict}"
        )


def differences(reports: Sequence[Compared]) -> list[Difference]:
    """Every pair of reports of one kind, suite and mode with items in common, tested on those items."""
    found = []
    for first, second in combinations(reports, 2):
        a, b = first.report, second.report
        if (a["kind"], a["suite"]) != (b["kind"], b["suite"]):
            continue
        for mode in a["scores"]:
            if mode not in b["scores"]:
                continue
            mine, theirs = first.values(mode), second.values(mode)
            shared = [item for item in mine if item in theirs]
            if shared:
                test = paired_test([mine[i] for i in shared], [theirs[i] for i in shared])
                found.append(Difference(a["kind"], str(a["suite"]), mode, first, second, test))
    return found


def comparison_markdown(reports: Sequence[Compared], found: Sequence[Difference]) -> str:
    card = table(reports)
    lines = ["# Comparison", "", "From: " + ", ".join(md_code(each.label) for each in reports), ""]
    lines += [markdown_table(card.columns, card.rows), ""]
    lines += ["## Differences on shared items", ""]
    lines += [f"- {md(d.line())}" for d in found] or ["No two runs of the same kind, suite and mode share items."]
    return "\n".join(lines) + "\n"
