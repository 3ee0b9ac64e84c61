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
from harness.reports.document import Scorecard, rules_name, system_of
from harness.reports.escape import md, md_code
from harness.reports.reader import EDITED_MARK, NotAReport, Reader
from harness.reports.system_label import system_label
from harness.reports.tables import markdown_table

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
ITEM_SCORE = "item score"
ITEM_PASSED = "items passed"
ITEM_MEAN = (
    f"item mean: what the paired test compares, per item (a case, session turn, question, task, scenario) its "
    f"score ({ITEM_SCORE}), else 1 or 0 for passed or failed ({ITEM_PASSED}); the overall measures are the "
    "kind's own, which may count otherwise (a session as one case, a subset of the items)"
)
"""What the item mean is, and why an overall measure (a pass rate) need not equal it."""


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

    def item_measure(self, mode: str) -> str:
        """What `values` holds for the mode: item scores where any item has one, else passes."""
        cases = self.report["scores"].get(mode, {}).get("cases", {})
        return ITEM_SCORE if any(case.get("score") is not None for case in cases.values()) else ITEM_PASSED

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


COLUMNS = ("kind", "suite · rules", "system", "backend", "mode", "items", "item mean", "overall")
NOT_RUN = "–"
"""A row's mode, items or item mean where the report has none (a kind not applicable, no mode run)."""


@dataclass(frozen=True)
class Scored:
    """One row of the comparison: a report in one mode, its sheet, or why it has no scores."""

    each: Compared
    mode: str
    sheet: Mapping[str, Any] | None
    unscored: str | None = None
    """Why the row has no scores (not applicable to the system, no mode run); None: `sheet` holds them."""


def scored(each: Compared) -> list[Scored]:
    """The report's rows, one per mode it scored: a kind not applicable to the system is a row per
    mode saying so (never its empty sheet, nor a zero), and a report with nothing scored is still a row."""
    report = each.report
    skipped = report.get("not_applicable")
    if skipped:
        modes = report["modes"] or list(report["scores"]) or [NOT_RUN]
        return [Scored(each, mode, None, f"not applicable: {skipped}") for mode in modes]
    if report["scores"]:
        return [Scored(each, mode, sheet) for mode, sheet in report["scores"].items()]
    why = "; ".join(f"{mode}: {reason}" for mode, reason in report["unsupported_modes"].items())
    return [Scored(each, mode, None, "no scores") for mode in report["modes"]] or [
        Scored(each, NOT_RUN, None, f"no mode run ({why})" if why else "no mode run")
    ]


def item_mean(each: Compared, mode: str) -> str:
    """The quantity the paired test compares (`Difference.line`) over every item of the sheet, named."""
    values = each.values(mode)
    if not values:
        return NOT_RUN
    return f"{each.item_measure(mode)} {sum(values.values()) / len(values):.4f}"


def table(reports: Sequence[Compared]) -> Scorecard:
    """One row per report and mode it scored (a report with none: one row saying why)."""
    rows = []
    for row in (row for each in reports for row in scored(each)):
        r = row.each.report
        sheet = row.sheet
        rows.append(
            [
                r["kind"] + row.each.mark,
                f"{r['suite']} · {rules_name(r)}",
                system_label(r).text,
                r["backend"]["backend"],
                row.mode,
                NOT_RUN if sheet is None else str(len(sheet["cases"])),
                NOT_RUN if sheet is None else item_mean(row.each, row.mode),
                row.unscored or _shown(r, sheet["overall"] if sheet else {}),
            ]
        )
    caption = [f"from: {', '.join(each.label for each in reports)}", ITEM_MEAN]
    return Scorecard("comparison", COLUMNS, rows, caption)


@dataclass(frozen=True)
class Difference:
    kind: str
    suite: str
    mode: str
    first: Compared
    second: Compared
    test: Paired
    measure: str
    """What the test's means are means of (`ITEM_SCORE` or `ITEM_PASSED`), as the table's item mean names it."""

    def line(self) -> str:
        t = self.test
        verdict = f"significant (p < {ALPHA})" if t.significant else "not significant"
        return (
            f"{self.kind} {self.suite} {self.mode}: {self.first.label} vs {self.second.label} on {t.items} shared "
            f"items: {self.measure} {t.mean_first:.4f} -> {t.mean_second:.4f} ({t.difference:+.4f}), "
            f"paired randomization p = {t.p_value:.4f}: {verdict}"
        )


def differences(reports: Sequence[Compared]) -> list[Difference]:
    """Every pair of reports of one kind, suite, rules and mode with items in common, tested on those
    items (a report of a kind not applicable to its system has none; two rulesets score differently)."""
    found = []
    for first, second in combinations(reports, 2):
        a, b = first.report, second.report
        if (a["kind"], a["suite"], rules_name(a)) != (b["kind"], b["suite"], rules_name(b)):
            continue
        if a.get("not_applicable") or b.get("not_applicable"):
            continue
        for mode in a["scores"]:
            if mode not in b["scores"]:
                continue
            mine, theirs = first.values(mode), second.values(mode)
            shared = [item for item in mine if item in theirs]
            if shared:
                test = paired_test([mine[i] for i in shared], [theirs[i] for i in shared])
                measures = {first.item_measure(mode), second.item_measure(mode)}
                measure = ITEM_SCORE if ITEM_SCORE in measures else ITEM_PASSED
                found.append(Difference(a["kind"], str(a["suite"]), mode, first, second, test, measure))
    return found


def comparison_markdown(reports: Sequence[Compared], found: Sequence[Difference]) -> str:
    card = table(reports)
    lines = ["# Comparison", "", "From: " + ", ".join(md_code(each.label) for each in reports), ""]
    lines += [markdown_table(card.columns, card.rows), "", md(ITEM_MEAN[0].upper() + ITEM_MEAN[1:]) + ".", ""]
    lines += ["## Differences on shared items", ""]
    lines += [f"- {md(d.line())}" for d in found] or [
        "No two runs of the same kind, suite, rules and mode share items."
    ]
    return "\n".join(lines) + "\n"
