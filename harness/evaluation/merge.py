"""Shard reports of one run, of any kind, combined into the report the unsharded run would have written.

Every result is in the shard reports, so the merged report is made again from them with the same
code as a run's, for every kind alike: the kind is built again from its envelope's origin (its
input files checked by their sha256), takes back what its run kept besides its results where its
spec says how (`restore`: a dataset run's load notes and timings), and reports the shards'
results, read back through its spec, in the order an unsharded run has them. Shards must come
from the same run (the envelope's `SAME_RUN` fields) on the same system (all it declared: the same
URL serving another service is another system) and cover 1..N exactly once; anything else
is a `HarnessError` (one line, exit 2). Latency percentiles are recomputed from the per-item
milliseconds the reports keep; timing adds the shards' work up.

No shard's numbers are trusted: each is read as every report is (`reports/reader.py`: limits, the
envelope's schema, and the checksum its run wrote: a report edited since, emptied or without one is
refused, whatever the reader allows), each row is read back by its kind and checked against the
row's types, and its stored score sheets must equal those recomputed from its own rows. An incomplete shard makes the merged report incomplete (its reason names the shard); the CLI
gives a merge the verdict the unsharded run would have had (`runner.verdict` over every row).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, is_dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from harness.backends.base import BackendInfo
from harness.errors import HarnessError
from harness.evaluation.kind import CaseKind, KindSpec, R, rebuild, run_order
from harness.evaluation.view import view
from harness.messages import error_text
from harness.models.rulesets import rules_record
from harness.models.scoresheet import sheet_json
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RunInfo, defaulted, system_of
from harness.reports.envelope import Envelope, inputs_json
from harness.reports.fields import CHECKSUM, FIELDS
from harness.reports.reader import Reader
from harness.suites.jsonfile import describe
from harness.systems.protocol import REFERENCE, SystemInfo

SAME_RUN = ("kind", "suite", "origin", "inputs", "backend", "modes", "unsupported_modes")
"""Envelope fields every shard of a run must share (its `settings` may name the shard's own
items, as a lifecycle run's scenarios)."""


def _shard(report: dict[str, Any]) -> dict[str, Any] | None:
    return report.get("shard")


def load_report(path: Path, reader: Reader) -> dict[str, Any]:
    """A shard report, read as every report is (`reports.reader`), never an edited one."""
    report = replace(reader, allow_edited=False, remedy="rerun that shard").read(path).document
    if not _shard(report):
        raise HarnessError(f"{path}: not a shard report (it was run without --shard)")
    return report


@contextmanager
def _reading_back(path: Path | str) -> Iterator[None]:
    """What a shard report holds beyond its envelope (its rows, origin, system) read back by the
    kind's own readers: anything they cannot read is this report's fault, one line naming it."""
    try:
        yield
    except ValidationError as exc:
        field, message = describe(exc)
        raise HarnessError(f"{path}: not a shard report this harness can read back: {field}: {message}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise HarnessError(f"{path}: not a shard report this harness can read back ({error_text(exc)})") from None


def _results(kind: KindSpec[Any, R], report: dict[str, Any], path: Path | str) -> list[R]:
    """The shard's result rows, each read by its kind and checked against the row's declared types."""
    rows = report.get(kind.results_key)
    if not isinstance(rows, list):
        raise HarnessError(f"{path}: not a {kind.name} report: no `{kind.results_key}` list")
    results = []
    adapters: dict[type, TypeAdapter[Any]] = {}
    for position, row in enumerate(rows):
        with _reading_back(f"{path}: {kind.results_key}[{position}]"):
            result = kind.result(row)
            _check_types(result, adapters)
        results.append(result)
    return results


def _check_types(result: object, adapters: dict[type, TypeAdapter[Any]]) -> None:
    """A row read back has its fields' declared types: a kind's reader builds its dataclass unchecked."""
    if is_dataclass(result) and not isinstance(result, type):
        row_type = type(result)
        if row_type not in adapters:
            adapters[row_type] = TypeAdapter(row_type)
        adapters[row_type].validate_json(
            json.dumps(asdict(result), default=str), strict=True
        )  # as JSON: "yes" is no bool


def _settings(report: dict[str, Any]) -> dict[str, Any]:
    shards = _shard(report)["count"]  # type: ignore[index]  # load_report checked it is there
    return {key: report[key] for key in SAME_RUN} | {"shards": shards}


def check_shards(reports: Sequence[dict[str, Any]], paths: Sequence[Path]) -> None:
    """Same settings everywhere, and shards 1..N each exactly once."""
    for report, path in zip(reports[1:], paths[1:], strict=True):
        if report["kind"] != reports[0]["kind"]:
            raise HarnessError(f"{path} differs from {paths[0]} in kind: not shards of one run")
        system, first_system = defaulted(report, "system"), defaulted(reports[0], "system")
        if differing := [key for key in first_system if system.get(key) != first_system[key]]:
            raise HarnessError(
                f"{path} differs from {paths[0]} in system ({', '.join(differing)}): not shards of one run"
            )
    first = _settings(reports[0])
    for report, path in zip(reports[1:], paths[1:], strict=True):
        settings = _settings(report)
        if differing := [key for key in first if settings[key] != first[key]]:
            raise HarnessError(f"{path} differs from {paths[0]} in {', '.join(differing)}: not shards of one run")
    count = first["shards"]
    seen: dict[int, Path] = {}
    for report, path in zip(reports, paths, strict=True):
        index = _shard(report)["index"]  # type: ignore[index]
        if index in seen:
            raise HarnessError(f"shard {index}/{count} given twice: {seen[index]} and {path}")
        seen[index] = path
    if missing := sorted(set(range(1, count + 1)) - set(seen)):
        raise HarnessError(f"missing shard {', '.join(f'{i}/{count}' for i in missing)}: every shard is needed")


@dataclass(frozen=True)
class Merged:
    """The merged report with its envelope, and every shard's result rows (the run's verdict reads them)."""

    envelope: Envelope
    report: Report
    results: list[Any]

    @property
    def incomplete(self) -> str | None:
        """Why the merged run is incomplete (a shard's reason, naming it); None when every shard finished."""
        return self.envelope.fields["incomplete_reason"] if self.envelope.incomplete else None


def merge_reports(paths: Sequence[Path], specs: Sequence[KindSpec[Any, Any]], reader: Reader | None = None) -> Merged:
    """The merged report of the shard reports at `paths` (any order), as a run would have written
    it, with its envelope; `specs`: the kind registry (the report's `kind` names its spec);
    `reader`: the size limit to read them within (edited shards are refused whatever it allows)."""
    if not paths:
        raise HarnessError("merge needs the shard reports to combine")
    reader = reader or Reader()
    reports = [load_report(p, reader) for p in paths]
    check_shards(reports, paths)
    order = sorted(range(len(reports)), key=lambda i: _shard(reports[i])["index"])  # type: ignore[index]
    reports, shown = [reports[i] for i in order], [str(paths[i]) for i in order]
    kind = next((s for s in specs if s.name == reports[0]["kind"]), None)
    if kind is None:
        raise HarnessError(f"{paths[0]}: a report of kind {reports[0]['kind']!r}, which this harness does not know")
    results = [_results(kind, shard, path) for shard, path in zip(reports, shown, strict=True)]
    stopped = [
        f"shard {r['shard']['index']}/{r['shard']['count']} {r['incomplete_reason']}"
        for r in reports
        if r["incomplete"]
    ]
    with _reading_back(shown[0]):
        built = _built(kind, reports[0])
    for shard, path in zip(reports, shown, strict=True):
        with _reading_back(path):
            _check_scores(_rebuilt(kind, built, [shard], shard["incomplete_reason"]), shard, path)
    with _reading_back(shown[0]):
        report = _rebuilt(kind, built, reports, "; ".join(stopped) or None)
    first = reports[0]
    fields = {name: defaulted(first, name) for name in FIELDS if name != "files"}
    fields.update(
        shard=None,
        incomplete=bool(stopped),
        incomplete_reason="; ".join(stopped) or None,
        wall_s=sum(r["wall_s"] for r in reports),
        concurrency=max(int(r.get("concurrency") or 1) for r in reports),
        throughput=None,  # the shards ran apart: their rates are theirs
        settings=dict(report.settings) if report.settings else first["settings"],
        scores={mode: sheet_json(sheet) for mode, sheet in report.scores.items()},
        view=view(kind, built, report),
        rules=rules_record(kind.rules(built, system_of(first) == REFERENCE)).to_json(),
    )
    return Merged(Envelope(fields, "items"), report, [row for rows in results for row in rows])


def _built(kind: KindSpec[Any, R], first: dict[str, Any]) -> CaseKind[R]:
    """The kind the unsharded run had, built again from the report's origin (its input files unchanged)."""
    built = rebuild(kind, first["origin"], first["modes"])
    if inputs_json(built.inputs()) != first["inputs"]:
        raise HarnessError("the input files changed since the shards ran (their sha256 differs): rerun the shards")
    return built


def _check_scores(alone: Report, shard: dict[str, Any], path: str) -> None:
    """A shard's stored score sheets must be what its own rows give (`alone`): its summary is never taken as is."""
    recomputed = json.loads(json.dumps({mode: sheet_json(sheet) for mode, sheet in alone.scores.items()}, default=str))
    if recomputed != shard["scores"]:
        differing = sorted(m for m in {*recomputed, *shard["scores"]} if recomputed.get(m) != shard["scores"].get(m))
        raise HarnessError(
            f"{path}: its stored scores ({', '.join(differing)}) disagree with its own per-item rows: "
            "edited or corrupt, rerun that shard"
        )


def _rebuilt(
    kind: KindSpec[Any, R], built: CaseKind[R], reports: Sequence[dict[str, Any]], incomplete: str | None
) -> Report:
    """The kind built again unsharded, reporting every shard's results (with what its run kept besides them;
    each row read afresh, as `report` may annotate them)."""
    first = reports[0]
    results: list[R] = [kind.result(r) for report in reports for r in report[kind.results_key]]
    seen = Counter((r.item_id, r.mode) for r in results)
    if duplicated := sorted(str(item) for (item, _), n in seen.items() if n > 1):
        raise HarnessError(f"{duplicated[0]} is in more than one shard report: not shards of one run")
    modes = list(first["modes"])
    results.sort(key=run_order(kind, built, modes))
    if kind.restore is not None:
        kind.restore(built, [{k: v for k, v in r.items() if k not in (*FIELDS, CHECKSUM)} for r in reports])
    run = RunInfo(
        BackendInfo(**first["backend"]),
        tuple(Mode(m) for m in modes),
        {Mode(m): why for m, why in first["unsupported_modes"].items()},
        {},
        datetime.fromisoformat(first["started_at"]),
        sum(r["wall_s"] for r in reports),
        incomplete,
        system=SystemInfo.from_json(defaulted(first, "system")),
        not_applicable=first.get("not_applicable"),
        concurrency=max(int(r.get("concurrency") or 1) for r in reports),
    )
    return built.report(results, run)
