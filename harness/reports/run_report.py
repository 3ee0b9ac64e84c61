"""The per-run report: JSON with every case explained, and its Markdown summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.evaluation.kind import Scorecard
from harness.evaluation.results import CaseResult
from harness.metrics.measures import NDCG, SET_PRECISION, SET_RECALL, SUITE_MEASURES
from harness.pipeline.settings import PipelineSettings
from harness.reports import tables
from harness.reports.escape import md, md_code
from harness.reports.summary import ModeSummary


def baseline_settings(settings: PipelineSettings, limit: int | None, embedding_model: str | None) -> dict[str, Any]:
    """The settings a belief run's scores depend on, as its baselines record them (the CLI's and
    the pytest plugin's alike, so either can check what the other froze)."""
    return {
        "fields": dict(settings.fields),
        "rrf_k": settings.rrf_k,
        "relation_decay": settings.relation_decay,
        "limit": limit,
        "embedding_model": embedding_model,
    }


def scorecard(report: dict[str, Any], title: str) -> Scorecard:
    """The scorecard; its caption says when the run has errors (never a clean-looking table; the
    runner adds the INCOMPLETE line)."""
    notes = [f"ERRORS: {line}"] if (line := error_line(report)) else []
    notes.append("n: cases the precision, recall and nDCG means are taken over")
    return Scorecard(title, SCORECARD_COLUMNS, scorecard_rows(report["summary"]), notes)


def build(
    meta: dict[str, Any],
    summaries: Sequence[ModeSummary],
    results: Sequence[CaseResult],
    memories: dict[str, dict[str, str]] | None = None,
) -> dict[str, Any]:
    """The report's body (the runner's envelope says whether the run is complete); `memories`: per
    suite, the text of each memory its cases retrieved or expected (`memory_texts`)."""
    errors = [r.error for r in results if r.error is not None]
    return {
        "meta": meta,
        "errors": {"count": len(errors), "distinct": len(set(errors)), "first": errors[0] if errors else None},
        "summary": [s.to_json() for s in summaries],
        "cases": [r.to_json() for r in results],
        "memories": memories or {},
    }


def error_line(report: dict[str, Any]) -> str | None:
    """`N of M results errored (K distinct); first: ...`, or None for a run without errors."""
    errors = report.get("errors") or {}
    if not errors.get("count"):
        return None
    return (
        f"{errors['count']} of {len(report['cases'])} results errored ({errors['distinct']} distinct); "
        f"first: {errors['first']}"
    )


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


SCORECARD_COLUMNS = (
    "backend",
    "mode",
    "static",
    "session",
    "turns",
    "errors",
    "n",
    SET_PRECISION.label,
    SET_RECALL.label,
    NDCG.label,
    "drift",
    "active / structural / trivial",
    "p50 ms",
    "p95 ms",
)


def scorecard_rows(summaries: Sequence[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for s in summaries:
        if s.get("unsupported"):
            rows.append([s["backend"], s["mode"], "unsupported", *["–"] * (len(SCORECARD_COLUMNS) - 3)])
            continue
        types = s["pass_types"]
        rows.append(
            [
                s["backend"],
                s["mode"],
                f"{s['static_passed']}/{s['static_total']}",
                f"{s['session_passed']}/{s['session_total']}",
                f"{s['turns_passed']}/{s['turns_total']}",
                str(s["errors"]),
                "–" if s.get("measured") is None else str(s["measured"]),
                _num(s["mean_precision"]),
                _num(s["mean_recall"]),
                _num(s["mean_ndcg"]),
                _num(s["mean_drift"]),
                f"{types.get('active', 0)} / {types.get('structural', 0)} / {types.get('trivially_empty', 0)}",
                _num(s["p50_ms"]),
                _num(s["p95_ms"]),
            ]
        )
    return rows


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return "\n".join(tables.table(header, rows))


def _suite_label(suite: dict[str, Any]) -> str:
    ruleset = suite.get("ruleset")
    return f"{md(suite['name'])} (ruleset {md(ruleset)})" if ruleset else md(suite["name"])


def to_markdown(report: dict[str, Any]) -> str:
    meta = report["meta"]
    backend = meta.get("backend") or {}
    out = [
        f"# Retrieval run {meta['created_at']}",
        "",
        *([f"> **ERRORS**: {md(line)}.", ""] if (line := error_line(report)) else []),
        f"Suites: {', '.join(_suite_label(s) for s in meta.get('suites', []))}. "
        f"Backend: {md(backend.get('backend'))} ({md(backend.get('engine'))}; {md(backend.get('server_version'))}). "
        f"Lexical scorer: {md(backend.get('lexical_scorer'))}. Embedding model: {md(meta.get('embedding_model') or 'none')}.",
        f"Harness {meta['harness_version']} at {meta.get('git_commit') or 'unknown commit'}, "
        f"Python {meta['python']} on {meta['platform']}.",
        "",
        "Over the relevant tier against the expected set (binary gain; cases with an empty expected set, "
        "and errored cases, are left out of the means: `n` is how many cases they are taken over): "
        + "; ".join(f"{m.label}: {m.definition}" for m in SUITE_MEASURES)
        + ". Drift: |noise| / (|relevant| + |pinned|) per session turn.",
        *(f"\nNote on {md(s['name'])}: {md(s['note'])}." for s in meta.get("suites", []) if s.get("note")),
        "",
        markdown_table(SCORECARD_COLUMNS, scorecard_rows(report["summary"])),
        "",
    ]
    unsupported = [s for s in report["summary"] if s.get("unsupported")]
    for s in unsupported:
        out.append(f"{md(s['backend'])}/{md(s['mode'])} not run: {md(s['unsupported'])}.")
    if unsupported:
        out.append("")
    failures = [c for c in report["cases"] if not c["passed"]]
    out.append(f"## Failures ({len(failures)})")
    out.append("")
    if not failures:
        out.append("None.")
    for case in failures:
        turn = f" turn {case['turn']}" if case["turn"] is not None else ""
        where = md_code(f"{case['backend']}/{case['mode']}")
        out.append(f"- {where} **{md(case['case_id'])}**{turn}: " + "; ".join(map(md, case["reasons"])))
    return "\n".join(out) + "\n"
