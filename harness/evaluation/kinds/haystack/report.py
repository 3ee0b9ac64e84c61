"""Dataset run reports: a JSON record of every question, a Markdown summary, the scorecard and TREC runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import __version__
from harness.evaluation.kinds.haystack.results import Evaluation
from harness.evaluation.kinds.haystack.summary import DatasetSummary, defect_counts, skipped_counts, summarize
from harness.metrics.dataset_measures import HEADLINE, definition_of, definitions, label
from harness.metrics.evaluate import QrelsByQuery, RunByQuery
from harness.pipeline.fusion import RRF_K
from harness.pipeline.haystack import CONTEXT_WEIGHT, DEPTH, NEIGHBOUR_SHARE, fusion_for
from harness.reports import tables
from harness.reports.document import Scorecard
from harness.reports.escape import md, md_code
from harness.reports.metadata import machine as host_machine
from harness.reports.published import published_for

_FUSED_BY = {
    "convex": "a convex combination of their min-max normalised scores",
    "rrf": f"weighted reciprocal rank fusion (k={RRF_K})",
}


def method(embedding_model: str | None) -> str:
    """How the run retrieves, in words, with hybrid's fusion for its encoder."""
    fusion = fusion_for(embedding_model)
    hybrid = (
        f"hybrid: the bm25 and vector rankings of the run's granularity fused by {_FUSED_BY[fusion.method]}, "
        f"vector share {fusion.share} for {embedding_model}. "
        if embedding_model
        else ""
    )
    return (
        f"Indexed text is analysed by the harness analyzer (lowercased words, stopwords dropped, no stemming). "
        f"Turns are indexed as `speaker: text` with their same-session neighbours in a `context` field "
        f"(BM25 weight {CONTEXT_WEIGHT}); a turn's vector is its own plus {NEIGHBOUR_SHARE} of each neighbour's. "
        f"Sessions are indexed whole for BM25. bm25: BM25 at the run's granularity. vector: cosine over turns, "
        f"a session scoring its best turn (max). {hybrid}"
        f"Turn runs are also scored at session level, each session by its best turn (max). Rankings are cut at "
        f"{DEPTH}. Latency is the search only: query vectors are looked up before, timed as embedding."
    )


@dataclass(frozen=True, slots=True)
class RunContext:
    """What a report states about the run besides its results."""

    dataset: str
    file: Path
    embedding_model: str | None
    limit: int | None
    sample: str
    seed: int
    total_questions: int
    selected_questions: int
    error_threshold: float
    embedding_device: str | None = None


def machine() -> dict[str, Any]:
    """Where the numbers were measured, and by which harness."""
    return {**host_machine(), "harness": __version__}


def mode_json(summary: DatasetSummary) -> dict[str, Any]:
    return {
        "asked": summary.asked,
        "errors": summary.errors,
        "latency_ms": {
            "count": summary.latency.count,
            "p50": summary.latency.p50_ms,
            "p95": summary.latency.p95_ms,
            "mean": summary.latency.mean_ms,
            "max": summary.latency.max_ms,
        },
        "levels": {
            str(level): {
                "questions": ls.overall.questions,
                "metrics": ls.overall.metrics,
                "by_category": {c: {"questions": a.questions, "metrics": a.metrics} for c, a in ls.by_category.items()},
            }
            for level, ls in summary.levels.items()
        },
    }


def comparison(dataset: str, summaries: list[DatasetSummary]) -> list[dict[str, Any]]:
    """Published numbers next to ours for the same level and metric definition, for each mode run."""
    rows = []
    for published in published_for(dataset):
        ours = {
            str(s.mode): s.levels[published.level].overall.metrics.get(published.metric)
            for s in summaries
            if published.level in s.levels
        }
        rows.append(
            {
                "system": published.system,
                "level": str(published.level),
                "metric": published.metric,
                "definition": definition_of(published.metric),
                "published": published.value,
                "ours": ours,
            }
        )
    return rows


def build_report(run: Evaluation, context: RunContext) -> dict[str, Any]:
    """The report's body: settings, machine, definitions, summaries, comparison, every question
    (backend, modes, shard, start and completeness are the runner's envelope)."""
    summaries = summarize(run)
    return {
        "dataset": context.dataset,
        "file": str(context.file),
        "machine": machine(),
        "embedding_model": context.embedding_model,
        "embedding_device": context.embedding_device,
        "granularity": str(run.granularity),
        "selection": {
            "limit": context.limit,
            "sample": context.sample,
            "seed": context.seed,
            "selected": context.selected_questions,
            "total": context.total_questions,
        },
        "method": method(context.embedding_model),
        "definitions": definitions(),
        "timing": {
            "wall_s": run.wall_s,
            "ingest_s": sum(h.ingest_s for h in run.haystacks),
            "embed_s": sum(h.embed_s for h in run.haystacks),
            "haystacks": len(run.haystacks),
            "documents": sum(h.documents for h in run.haystacks),
            "peak_rss_mb": run.peak_rss_mb,
        },
        "error_fraction": run.error_fraction(),
        "errors": {
            "count": len(run.errors),
            "distinct": len({r.reason for r in run.errors}),
            "first": run.errors[0].reason if run.errors else None,
            "backend_lost": any(r.backend_lost for r in run.errors),
        },
        "error_threshold": context.error_threshold,
        "skipped": dict(skipped_counts(run)),
        "defects": dict(defect_counts(run)),
        "notes": run.notes,
        "summary": {str(s.mode): mode_json(s) for s in summaries},
        "published": comparison(context.dataset, summaries),
        "questions": [r.to_json() for r in run.results],
    }


def scorecard(report: dict[str, Any]) -> Scorecard:
    """Per mode and level: errors, questions scored, the headline measures and search latency."""
    rows = []
    for mode, summary in report["summary"].items():
        latency = summary["latency_ms"]
        for level, data in summary["levels"].items():
            rows.append(
                [
                    mode,
                    level,
                    str(summary["errors"]),
                    str(data["questions"]),
                    *(_fmt(data["metrics"][m]) for m in HEADLINE),
                    f"{latency['p50']:.2f}",
                    f"{latency['p95']:.2f}",
                ]
            )
    timing = report["timing"]
    caption = []
    if merged := _merged(report):
        caption.append(f"merged from {merged} shard reports")
    else:
        caption.append(
            f"wall {timing['wall_s']:.1f} s, ingest {timing['ingest_s']:.1f} s, peak memory "
            f"{timing['peak_rss_mb']:.0f} MB, errors {report['error_fraction']:.1%} "
            f"(threshold {report['error_threshold']:.1%})"
        )
    return Scorecard(
        f"{report['dataset']}, {report['granularity']} granularity, {timing['haystacks']} haystacks",
        ("mode", "level", "errors", "n", *(label(m) for m in HEADLINE), "p50 ms", "p95 ms"),
        rows,
        caption,
    )


def merged_timing(shards: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The timing of a run merged from shards: their work added up, the longest shard's wall time."""
    return {
        "wall_s": max(t["wall_s"] for t in shards),
        "shard_wall_s": [t["wall_s"] for t in shards],
        **{key: sum(t[key] for t in shards) for key in ("ingest_s", "embed_s", "haystacks", "documents")},
        "peak_rss_mb": max(t["peak_rss_mb"] for t in shards),
    }


def _merged(report: dict[str, Any]) -> int:
    """How many shard reports a merged report was made from (0: a run's own report)."""
    return len(report["timing"].get("shard_wall_s", report.get("merged_from", ())))


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def render_markdown(report: dict[str, Any]) -> str:
    """A human summary of the JSON report; every number carries its metric's name and definition."""
    sel, timing = report["selection"], report["timing"]
    lines = [
        f"# {md(report['dataset'])} retrieval, {report['granularity']} granularity",
        "",
        f"- file: {md_code(report['file'])}; questions: {sel['selected']} of {sel['total']}"
        + (f" (limit {sel['limit']}, sample {sel['sample']}, seed {sel['seed']})" if sel["limit"] else "")
        + (f"; shard {report['shard']['index']} of {report['shard']['count']}" if report.get("shard") else "")
        + (f"; merged from {merged} shard reports" if (merged := _merged(report)) else ""),
        f"- backend: {md(report['backend']['backend'])} ({md(report['backend']['engine'])}, "
        f"{md(report['backend']['server_version'])})",
        f"- embedding model: {md(report['embedding_model'] or 'none (bm25 only)')}"
        + (f" on {md(report['embedding_device'])}" if report.get("embedding_device") else ""),
        f"- started {report['started_at']}; wall {timing['wall_s']:.1f} s; ingest {timing['ingest_s']:.1f} s over "
        f"{timing['haystacks']} haystacks ({timing['documents']} turns); embedding {timing['embed_s']:.1f} s; "
        f"peak memory {timing['peak_rss_mb']:.0f} MB",
        f"- machine: {report['machine']['platform']}, {report['machine']['cpus']} CPUs, "
        f"{report['machine']['memory_gb']} GB, Python {report['machine']['python']}",
        f"- errors: {report['error_fraction']:.1%} of questions asked (threshold {report['error_threshold']:.1%})"
        + (f"; first: {md(report['errors']['first'])}" if report["errors"]["first"] else ""),
        "",
        "## Results",
        "",
        "| mode | level | questions | " + " | ".join(HEADLINE) + " | p50 ms | p95 ms |",
        "|---|---|---|" + "---|" * (len(HEADLINE) + 2),
    ]
    for mode, summary in report["summary"].items():
        for level, data in summary["levels"].items():
            cells = " | ".join(_fmt(data["metrics"][m]) for m in HEADLINE)
            lat = summary["latency_ms"]
            lines.append(f"| {mode} | {level} | {data['questions']} | {cells} | {lat['p50']:.2f} | {lat['p95']:.2f} |")
    lines += ["", "## By question type", ""]
    for mode, summary in report["summary"].items():
        for level, data in summary["levels"].items():
            lines += [f"### {mode}, {level} level", "", "| type | questions | " + " | ".join(HEADLINE) + " |"]
            lines.append("|---|---|" + "---|" * len(HEADLINE))
            for category, agg in data["by_category"].items():
                cells = " | ".join(_fmt(agg["metrics"][m]) for m in HEADLINE)
                lines.append(tables.row([category, agg["questions"], *(_fmt(agg["metrics"][m]) for m in HEADLINE)]))
            lines.append("")
    lines += ["## Compared with published numbers", ""]
    if report["published"]:
        modes = list(report["summary"])
        lines.append(
            "| system | level | metric (definition) | published | " + " | ".join(f"ours, {m}" for m in modes) + " |"
        )
        lines.append("|---|---|---|---|" + "---|" * len(modes))
        for row in report["published"]:
            ours = " | ".join(_fmt(row["ours"].get(m)) for m in modes)
            lines.append(
                f"| {row['system']} | {row['level']} | {row['metric']} ({row['definition']}) | {row['published']:.3f} | {ours} |"
            )
        lines += [
            "",
            f"Published numbers are on the full file; this run asked {sel['selected']} of {sel['total']} questions.",
        ]
    else:
        lines.append("No published retrieval numbers for this file.")
    lines += _popoto_lines(report)
    lines += ["", "## Skipped questions and data defects", ""]
    lines += [f"- skipped, {md(reason)}: {n}" for reason, n in report["skipped"].items()] or ["- none skipped"]
    lines += [f"- evidence defect, {md(kind)}: {n}" for kind, n in report["defects"].items()]
    lines += [f"- {md(note)}" for note in report["notes"][:50]]
    if len(report["notes"]) > 50:
        lines.append(f"- ... {len(report['notes']) - 50} more notes in the JSON report")
    lines += ["", "## Method and definitions", "", report["method"], ""]
    lines += [f"- **{name}**: {text}" for name, text in report["definitions"].items()]
    return "\n".join(lines) + "\n"


def _popoto_lines(report: dict[str, Any]) -> list[str]:
    """Under Popoto's rules: the rules, and its recall@k means as its harness takes them."""
    rules = report.get("dataset_rules")
    if not rules:
        return []
    means: dict[str, dict[str, float | None]] = report["popoto"]
    names = list(next(iter(means.values()), {}))
    lines = [
        "",
        f"## Under Popoto's definitions ({md(rules['name'])})",
        "",
        f"Recall {md(rules['recall'])} on the {md(rules['gold_unit'])} ranking ({md(rules['ranking'])}) of the first "
        f"{rules['depth']} records; stored text: {md(rules['stored_text'])}; abstention questions asked against "
        "the sessions they name; a question without gold counts 0 in the mean. The harness's measures above are "
        "over the same records.",
        "",
        "| mode | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    lines += [f"| {mode} | " + " | ".join(_fmt(row[n]) for n in names) + " |" for mode, row in means.items()]
    return lines


def report_stem(report: dict[str, Any]) -> str:
    """`dataset-<name>-<granularity>`, and the rules where they are Popoto's (the runner adds a shard's part)."""
    rules = report.get("dataset_rules")
    suffix = f"-{rules['name'].replace('@', '-')}" if rules else ""
    return f"dataset-{report['dataset']}-{report['granularity']}{suffix}"


def dataset_trec(run: Evaluation) -> dict[str, tuple[RunByQuery, QrelsByQuery]]:
    """Per `<mode>-<level>`, every scored question's ranking and its gold set."""
    out: dict[str, tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]] = {}
    for result in run.results:
        for level in result.levels:
            scores, qrels = out.setdefault(f"{result.mode}-{level.level}", ({}, {}))
            scores[result.id] = dict(level.ranking)
            qrels[result.id] = dict.fromkeys(level.gold, 1)
    return dict(out)
