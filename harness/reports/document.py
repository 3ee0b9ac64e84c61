"""What a run's report is, whoever reads it: the types a kind reports in (`Report` with its
`Scorecard`), what the runner knows of the run (`RunInfo`), and the JSON document's envelope
fields and checksum.

A leaf of `reports/`: it imports no other report module but `fields.py` (the envelope's names, which
the page reads in its own process without this module's imports) and nothing of `evaluation/`, so
the kinds, the runner, the writer and the page all read one definition.

Envelope fields: `kind` (its spec's name), `suite` (the name baselines key it by), `origin` (the
`--suite` arguments and options that built the kind, for `harness merge`), `inputs` (each file the
items were read from, with its sha256, as MTEB pins a dataset revision), `backend`, `modes`,
`unsupported_modes`, `settings` (what the scores depend on, as a baseline records them), `shard`,
`incomplete` (a bool) with `incomplete_reason`, `harness_version`, `git_commit`, `started_at`,
`wall_s`, `files` (the report's own file names), `scores` (per mode, the score sheet baselines and
`harness compare` read), `system`, `not_applicable`, and `view`: what the kind's spec declares for
readers (where the body lists its items, each as a row of the page, a `RowText` and whether the
kind's judge failed it, what failing means, and its main measures), so the page and the
leaderboard read data, never a table of kind names; and `rules`: whose definitions made its
numbers, `{name, source, commit}` (`models/rulesets.py`), the one record the leaderboard and
compare read whatever the kind. A body never uses these names, nor `checksum`:
the last key of the JSON file, the sha256 of everything before it, so `harness merge` refuses a
report edited since.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.backends.base import BackendInfo
from harness.metrics.evaluate import QrelsByQuery, RunByQuery
from harness.models.scoresheet import ScoreSheet
from harness.pipeline.settings import Mode
from harness.reports.fields import CHECKSUM, FIELDS
from harness.shards import METHOD as SHARD_METHOD
from harness.shards import Shard
from harness.systems.protocol import REFERENCE, SystemInfo
from harness.systems.reference import NATIVE

SINCE = ("system", "not_applicable", "view", "concurrency", "throughput", "rules")
"""Envelope fields an older report may lack (one from before systems is of the reference system;
one from before `view` is read by where its kind kept its items; one from before `concurrency`
ran serially; one from before `rules` is given its rules record by the reader, `reader.migrated`)."""
REQUIRED = tuple(name for name in FIELDS if name not in SINCE)
"""The fields that make a JSON document a run report, whatever its age."""
TIMING = ("started_at", "wall_s", "files", "concurrency", "throughput")
"""Envelope fields that differ between two runs of the same items, however many ran at once
(merge tests and concurrency tests drop them)."""


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


def rules_name(report: Mapping[str, Any]) -> str:
    """The ruleset a report's numbers were made under: its envelope's `rules` (the reader gives a
    report from before the field its record: `reader.migrated`)."""
    return str(report["rules"]["name"])


def defaulted(report: Mapping[str, Any], name: str) -> Any:
    """An envelope field of a report, with what a report from before it existed means."""
    if name == "system" and report.get("system") is None:
        return NATIVE.to_json()
    return report.get(name)


@dataclass(frozen=True, slots=True)
class RunInfo:
    """What the runner knows about the run besides its results: the report envelope's facts."""

    backend: BackendInfo
    modes: tuple[Mode, ...]
    unsupported: Mapping[Mode, str]
    """Modes asked for that this backend cannot run, with the reason (reported, never faked)."""
    settings: Mapping[str, Any]
    """Run-wide settings the runner adds to the kind's (none today)."""
    started_at: datetime
    wall_s: float
    incomplete: str | None = None
    """Why the run stopped before its last item (its results are what finished)."""
    shard: Shard | None = None
    system: SystemInfo = NATIVE
    """The system under test (the reference system unless `--system` named another)."""
    not_applicable: str | None = None
    """Why the kind did not run on this system (it needs what the system does not declare)."""
    concurrency: int = 1
    """How many of the kind's tasks were in flight at most (`--concurrency`, capped by the system)."""
    throughput: Mapping[str, Any] | None = None
    """Items, requests and records per second of the run's wall time (`runner.throughput`)."""

    def envelope(self) -> dict[str, Any]:
        """The envelope fields the runner knows before the kind reports (see `runner.envelope`)."""
        return {
            "backend": asdict(self.backend),
            "modes": [m.value for m in self.modes],
            "unsupported_modes": {m.value: why for m, why in self.unsupported.items()},
            "shard": None if self.shard is None else shard_json(self.shard),
            "incomplete": self.incomplete is not None,
            "incomplete_reason": self.incomplete,
            "started_at": self.started_at.isoformat(timespec="seconds"),
            "wall_s": self.wall_s,
            "system": self.system.to_json(),
            "not_applicable": self.not_applicable,
            "concurrency": self.concurrency,
            "throughput": None if self.throughput is None else dict(self.throughput),
        }


def shard_json(shard: Shard) -> dict[str, Any]:
    """How a report says which part of the run it holds."""
    return {"index": shard.index, "count": shard.count, "method": SHARD_METHOD}


@dataclass(frozen=True, slots=True)
class Scorecard:
    """A table for the terminal, in plain strings: the CLI draws it and adds nothing."""

    title: str
    columns: tuple[str, ...]
    rows: Sequence[Sequence[str]]
    caption: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class Report:
    """What one run of one kind on one backend leaves behind."""

    stem: str
    """File name stem (`run-embedded`, `dataset-locomo-turn`, ...); the runner adds the shard, the
    writer the time."""
    data: Mapping[str, Any]
    """The report's body: the kind's own fields (the runner adds the envelope around them)."""
    markdown: str
    scorecard: Scorecard
    scores: Mapping[str, ScoreSheet] = field(default_factory=dict)
    """Per mode, what a baseline freezes and a regression check compares."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The settings that produced `scores`, as a baseline records them."""
    gates: Sequence[str] = ()
    """One line per quality gate the run failed (`--fail-under`, a FAIL grade): exit 1."""
    charts: Mapping[str, Callable[[Path], Path]] = field(default_factory=dict)
    """Per chart name, what draws it into a PNG path (`<report file stem>-<name>.png`); needs the chart extra."""
    trec: Mapping[str, tuple[RunByQuery, QrelsByQuery]] = field(default_factory=dict)
    """Per run key (a mode, or mode and level), the ranked runs and judgements for `--trec` files."""


@dataclass(frozen=True, slots=True)
class RowText:
    """How one item reads as a row of its report's page (a kind's spec says, per result)."""

    id: str
    category: str
    title: str
