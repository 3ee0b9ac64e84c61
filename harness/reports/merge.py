"""Shard reports of one dataset run combined into the report the unsharded run would have written.

Every per-question result is in the shard reports, so the merged summary is recomputed from them
with the same code as a run's (means by `math.fsum`, which makes them independent of question
order). Shards must come from the same settings and cover 1..N exactly once; anything else is a
`HarnessError` (one line, exit 2). Latency percentiles are recomputed from the per-question
milliseconds the reports keep (rounded to the microsecond); timing adds the shards' work up.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.question_results import Evaluation, LevelResult, QuestionResult, QuestionStatus
from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode
from harness.reports.dataset_report import comparison, mode_json
from harness.reports.dataset_summary import defect_counts, skipped_counts, summarize

SAME_SETTINGS = ("dataset", "backend", "embedding_model", "granularity", "modes", "method", "definitions")
"""Report fields every shard must share (plus the file name, the selection and the shard count)."""


def load_report(path: Path) -> dict[str, Any]:
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HarnessError(f"{path}: not a readable JSON report ({exc})") from None
    if not isinstance(report, dict) or report.get("kind") != "dataset-run":
        raise HarnessError(f"{path}: not a dataset run report")
    if not report.get("shard"):
        raise HarnessError(f"{path}: not a shard report (it was run without --shard)")
    if report.get("incomplete"):
        raise HarnessError(f"{path}: an incomplete (interrupted) run: rerun that shard")
    return report


def _settings(report: dict[str, Any]) -> dict[str, Any]:
    selection = report["selection"]
    return {
        **{key: report.get(key) for key in SAME_SETTINGS},
        "file": Path(report["file"]).name,
        "selection": {k: selection.get(k) for k in ("limit", "sample", "seed", "total")},
        "shards": report["shard"]["count"],
    }


def check_shards(reports: Sequence[dict[str, Any]], paths: Sequence[Path]) -> None:
    """Same settings everywhere, and shards 1..N each exactly once."""
    first = _settings(reports[0])
    for report, path in zip(reports[1:], paths[1:], strict=True):
        settings = _settings(report)
        if differing := [key for key in first if settings[key] != first[key]]:
            raise HarnessError(f"{path} differs from {paths[0]} in {', '.join(differing)}: not shards of one run")
    count = first["shards"]
    seen: dict[int, Path] = {}
    for report, path in zip(reports, paths, strict=True):
        index = report["shard"]["index"]
        if index in seen:
            raise HarnessError(f"shard {index}/{count} given twice: {seen[index]} and {path}")
        seen[index] = path
    if missing := sorted(set(range(1, count + 1)) - set(seen)):
        raise HarnessError(f"missing shard {', '.join(f'{i}/{count}' for i in missing)}: every shard is needed")


def question_result(data: dict[str, Any]) -> QuestionResult:
    """A report's question record read back (the inverse of `QuestionResult.to_json`)."""
    return QuestionResult(
        id=data["id"],
        haystack=data["haystack"],
        category=data["type"],
        text=data["question"],
        mode=Mode(data["mode"]) if data["mode"] else None,
        status=QuestionStatus(data["status"]),
        reason=data["error"],
        latency_s=None if data["latency_ms"] is None else data["latency_ms"] / 1000,
        levels=tuple(
            LevelResult(Granularity(level), tuple(lv["gold"]), tuple((i, s) for i, s in lv["retrieved"]), lv["metrics"])
            for level, lv in data["levels"].items()
        ),
        defects=tuple(data["defects"]),
        abstention=data["abstention"],
    )


def merge_reports(paths: Sequence[Path]) -> dict[str, Any]:
    """The merged report of the shard reports at `paths` (any order)."""
    if not paths:
        raise HarnessError("merge needs the shard reports to combine")
    reports = [load_report(p) for p in paths]
    check_shards(reports, paths)
    order = sorted(range(len(reports)), key=lambda i: reports[i]["shard"]["index"])
    reports = [reports[i] for i in order]
    run = Evaluation(Granularity(reports[0]["granularity"]), tuple(Mode(m) for m in reports[0]["modes"]))
    for report in reports:
        run.results.extend(question_result(q) for q in report["questions"])
        run.notes.extend(report["notes"])
    ids = Counter((r.id, r.mode) for r in run.results)
    if duplicated := sorted(str(question) for (question, _), n in ids.items() if n > 1):
        raise HarnessError(f"question {duplicated[0]} is in more than one shard report: not shards of one run")
    summaries = summarize(run)
    timings = [r["timing"] for r in reports]
    merged = dict(reports[0])
    merged.update(
        shard=None,
        merged_from=[str(paths[i]) for i in order],
        embedding_device=", ".join(sorted({str(r.get("embedding_device")) for r in reports})),
        timing={
            "wall_s": max(t["wall_s"] for t in timings),
            "shard_wall_s": [t["wall_s"] for t in timings],
            **{key: sum(t[key] for t in timings) for key in ("ingest_s", "embed_s", "haystacks", "documents")},
            "peak_rss_mb": max(t["peak_rss_mb"] for t in timings),
        },
        selection={**reports[0]["selection"], "selected": sum(r["selection"]["selected"] for r in reports)},
        error_fraction=run.error_fraction(),
        skipped=dict(skipped_counts(run)),
        defects=dict(defect_counts(run)),
        notes=run.notes,
        summary={str(s.mode): mode_json(s) for s in summaries},
        published=comparison(reports[0]["dataset"], summaries),
        questions=[r.to_json() for r in run.results],
    )
    return merged
