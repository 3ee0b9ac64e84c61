"""A run's reports as one JUnit XML file (`harness run --junit PATH`), which CI systems other than
GitHub read too: one `<testsuite>` per report (a kind run on one system and backend), one
`<testcase>` per row of its page (`html/rows.py`, read from the report's own `view`), so every kind's
items are cases without a table of kind names here.

A case's classname is `system/backend/kind/suite/mode` and its name the item's id (an id repeats in
each mode). A failed item carries a `<failure>` with the kind's reasons, an errored one an `<error>`,
an item left out a `<skipped>`; a kind not applicable to the system, and a mode the engine or the
system cannot run, are one skipped case each, saying why, so nothing asked for goes unsaid.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.files import atomic_write
from harness.reports.document import system_of
from harness.reports.html.rows import ERROR, FAIL, SKIPPED, rows
from harness.reports.reader import Reader


@dataclass(frozen=True)
class Tally:
    """What a JUnit file counts: its cases, and of them the failed, errored and skipped ones."""

    tests: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0

    @property
    def passed(self) -> int:
        return self.tests - self.failures - self.errors - self.skipped

    @property
    def pass_rate(self) -> float | None:
        """Passed of the cases that ran (skipped ones did not); None when none ran."""
        ran = self.tests - self.skipped
        return self.passed / ran if ran else None

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.tests + other.tests,
            self.failures + other.failures,
            self.errors + other.errors,
            self.skipped + other.skipped,
        )


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold at all, even escaped (a reason quoting a control byte a service sent)."""


def _text(value: Any) -> str:
    return "" if value is None else _NOT_XML.sub("\ufffd", str(value))


def _case(parent: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(parent, "testcase", {"classname": classname, "name": name})


def _suite(document: Mapping[str, Any]) -> tuple[ET.Element, Tally]:
    """One report as a `<testsuite>`, and what it counts."""
    backend = _text((document.get("backend") or {}).get("backend"))
    kind = _text(document.get("kind"))
    path = "/".join([_text(system_of(document)), backend, kind, _text(document.get("suite"))])
    suite = ET.Element("testsuite", {"name": path, "time": f"{float(document.get('wall_s') or 0):.3f}"})
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    if reason := document.get("not_applicable"):
        ET.SubElement(_case(suite, path, kind), "skipped", {"message": _text(f"not applicable: {reason}")})
        counts["skipped"] += 1
    for mode, why in (document.get("unsupported_modes") or {}).items():
        ET.SubElement(_case(suite, f"{path}/{mode}", f"{mode} mode"), "skipped", {"message": _text(f"not run: {why}")})
        counts["skipped"] += 1
    listing, listed = rows(document)
    for row in listed:
        case = _case(suite, f"{path}/{row.mode}" if row.mode else path, _text(row.id))
        if row.verdict == FAIL:
            reasons = [_text(r) for r in row.reasons] or [listing.rule if listing else "failed"]
            failure = ET.SubElement(case, "failure", {"message": reasons[0], "type": "failed"})
            failure.text = "\n".join(reasons)
            counts["failures"] += 1
        elif row.verdict == ERROR:
            ET.SubElement(case, "error", {"message": _text(row.item.get("error")), "type": "error"})
            counts["errors"] += 1
        elif row.verdict == SKIPPED:
            ET.SubElement(case, "skipped", {"message": _text(row.item.get("error"))})
            counts["skipped"] += 1
    tally = Tally(len(suite), **counts)
    suite.attrib.update(
        {
            "tests": str(tally.tests),
            "failures": str(tally.failures),
            "errors": str(tally.errors),
            "skipped": str(tally.skipped),
        }
    )
    return suite, tally


def junit_xml(documents: Sequence[Mapping[str, Any]]) -> tuple[str, Tally]:
    """The reports' JUnit XML document, and the cases it counts over all of them."""
    root = ET.Element("testsuites", {"name": "memory-retrieval-harness"})
    total = Tally()
    for document in documents:
        suite, tally = _suite(document)
        root.append(suite)
        total += tally
    root.attrib.update(
        {
            "tests": str(total.tests),
            "failures": str(total.failures),
            "errors": str(total.errors),
            "skipped": str(total.skipped),
        }
    )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n", total


def write_junit(path: Path, reports: Sequence[Path]) -> Tally:
    """Write the JUnit file of these JSON reports (as the run wrote them, read back as every command
    reads a report) to `path`; what it counts."""
    reader = Reader()
    documents = [reader.read(report).document for report in reports]
    text, tally = junit_xml(documents)
    try:  # checked before the run (`files.check_output`): this is a folder changed since
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
    except OSError as exc:
        raise HarnessError(f"--junit {path}: cannot write it: {exc.strerror or exc}") from None
    return tally
