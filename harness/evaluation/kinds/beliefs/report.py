"""A belief run's report body: JSON with every case explained, its Markdown, its summaries per mode."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from harness.evaluation.kinds.beliefs import pmb
from harness.evaluation.kinds.beliefs.context_choice import rule_of
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.summary import SCORECARD_COLUMNS, ModeSummary, error_line, scorecard_rows
from harness.metrics import latency_summary, mean_defined
from harness.metrics.measures import SUITE_MEASURES
from harness.pipeline.context_rules import adapter_rules
from harness.pipeline.settings import PipelineSettings
from harness.reports.escape import md, md_code
from harness.reports.tables import markdown_table


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


def summarize(results: Iterable[CaseResult]) -> list[ModeSummary]:
    groups: dict[tuple[str, str], list[CaseResult]] = defaultdict(list)
    for result in results:
        groups[(result.backend, result.mode)].append(result)
    return [_summary(backend, mode, rows) for (backend, mode), rows in groups.items()]


def _summary(backend: str, mode: str, rows: Sequence[CaseResult]) -> ModeSummary:
    static = [r for r in rows if r.kind == "static"]
    turns = [r for r in rows if r.kind == "session"]
    sessions: dict[str, bool] = {}
    for turn in turns:
        sessions[turn.case_id] = sessions.get(turn.case_id, True) and turn.passed
    latency = latency_summary([r.latency_ms / 1000.0 for r in rows if r.latency_ms is not None])
    return ModeSummary(
        backend=backend,
        mode=mode,
        static_passed=sum(r.passed for r in static),
        static_total=len(static),
        session_passed=sum(sessions.values()),
        session_total=len(sessions),
        turns_passed=sum(r.passed for r in turns),
        turns_total=len(turns),
        mean_precision=mean_defined(r.precision for r in rows),
        mean_recall=mean_defined(r.recall for r in rows),
        mean_ndcg=mean_defined(r.ndcg for r in rows),
        mrr=mean_defined(r.reciprocal_rank for r in rows),
        mean_drift=mean_defined(r.drift for r in turns),
        p50_ms=latency.p50_ms,
        p95_ms=latency.p95_ms,
        errors=sum(r.error is not None for r in rows),
        pass_types=dict(Counter(r.pass_type for r in rows if r.pass_type)),
        measured=sum(r.precision is not None for r in rows),
        first_error=next((r.error for r in rows if r.error is not None), None),
    )


def _suite_label(suite: dict[str, Any]) -> str:
    ruleset = suite.get("ruleset")
    return f"{md(suite['name'])} (ruleset {md(ruleset)})" if ruleset else md(suite["name"])


def _context_line(report: dict[str, Any]) -> str:
    """Who built the tiers the cases were judged on (docs/peer-rules.md)."""
    rule = rule_of(report)
    prelude = ((report["meta"].get("context_rules") or {}).get("prelude")) if adapter_rules(rule) else None
    return f"Context rules: {md(rule.value)}" + (f"; prelude: {md(prelude)}." if prelude else ".")


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
        _context_line(report),
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
    if "precisionmembench" in report:
        out += pmb.markdown(report["precisionmembench"])
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
