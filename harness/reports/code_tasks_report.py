"""The report of a code-task run on one backend: recall per mode after each answering layer, per
category and per task, the project's structure, and, for a set with a baseline, nano-brain's
comparison (a run regresses when its overall recall is under the baseline's by more than 0.001)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from harness.evaluation.code_task_results import CodeTaskResult
from harness.evaluation.kind import Report, RunInfo, Scorecard
from harness.metrics.surfaced import by_category, mean_recall
from harness.models.code_task import REGRESSION_MARGIN, TaskCategory, TaskSet
from harness.models.project import Project
from harness.models.scoresheet import CaseScore, ScoreSheet
from harness.pipeline.code_answer import LAYERS
from harness.reports import tables
from harness.reports.metadata import machine
from harness.suites.projects.structure import structure

LAYER_LABELS = {"search": "search", "identifiers": "+identifiers", "graph": "+graph"}


def summarize(results: Sequence[CodeTaskResult], tasks: TaskSet) -> dict[str, dict[str, Any]]:
    """Per mode: task and error counts, overall recall after each layer, recall per category
    (after every layer) and, with a baseline, the comparison. Errored tasks score 0."""
    by_mode: dict[str, list[CodeTaskResult]] = defaultdict(list)
    for result in results:
        by_mode[result.mode].append(result)
    summary: dict[str, dict[str, Any]] = {}
    for mode, rows in by_mode.items():
        categories: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            categories[row.category].append(row.recall or 0.0)
        overall = mean_recall([row.recall or 0.0 for row in rows])
        entry: dict[str, Any] = {
            "tasks": len(rows),
            "errors": sum(1 for row in rows if row.error),
            "overall": overall,
            "layers": {layer: mean_recall([row.layers.get(layer, 0.0) for row in rows]) for layer in LAYERS},
            "by_category": by_category(categories),
        }
        entry["bench_results"] = bench_results(rows, entry)
        if tasks.baseline is not None:
            base = baseline_overall(tasks, [row.task_id for row in rows])
            entry["baseline"] = {
                "overall": base,
                "delta": round(overall - base, 3),
                "regression": overall < base - REGRESSION_MARGIN,
                "by_category": dict(tasks.baseline.by_category),
                "tasks": {t.id: t.recall for t in tasks.baseline.tasks},
            }
        summary[mode] = entry
    return summary


def baseline_overall(tasks: TaskSet, ran: Sequence[str]) -> float:
    """The baseline's overall recall to compare this run's with: when the run ran only some of the
    baseline's tasks (`--limit`, `--shard`), the mean of the same tasks' recalls, never the whole
    set's; else its overall (a task the baseline lacks lowers the run's overall, as nano-brain's rule)."""
    assert tasks.baseline is not None
    recalls = {t.id: t.recall for t in tasks.baseline.tasks}
    if set(ran) < set(recalls):
        return mean_recall([recalls[task] for task in ran])
    return tasks.baseline.overall


def bench_results(rows: Sequence[CodeTaskResult], entry: Mapping[str, Any]) -> dict[str, Any]:
    """The mode's results in nano-brain's `results_current.json` shape (empty lists as null, as Go
    writes them): saved as `baseline_v1.json` beside a task file, it is the baseline later runs check."""
    return {
        "version": "1",
        "overall": entry["overall"],
        "by_category": entry["by_category"],
        "tasks": [
            {
                "id": row.task_id,
                "category": row.category,
                "recall": row.recall or 0.0,
                "matched": row.matched or None,
                "missed": row.missed or None,
            }
            for row in rows
        ],
    }


def score_sheets(results: Sequence[CodeTaskResult], summary: Mapping[str, Mapping[str, Any]]) -> dict[str, ScoreSheet]:
    sheets = {}
    for mode, entry in summary.items():
        overall = {"recall": entry["overall"], **{f"recall_{layer}": v for layer, v in entry["layers"].items()}}
        sheets[mode] = ScoreSheet(
            overall=overall,
            categories={category: {"recall": v} for category, v in entry["by_category"].items()},
            cases={r.task_id: CaseScore(score=r.recall or 0.0) for r in results if r.mode == mode},
        )
    return sheets


def gates(summary: Mapping[str, Mapping[str, Any]], fail_under: float | None) -> list[str]:
    lines = []
    for mode, entry in summary.items():
        baseline = entry.get("baseline")
        if baseline and baseline["regression"]:
            lines.append(
                f"{mode}: overall recall {entry['overall']:.3f} under the baseline's {baseline['overall']:.3f} "
                f"(delta {baseline['delta']:+.3f}, allowed -{REGRESSION_MARGIN})"
            )
        if fail_under is not None and entry["overall"] < fail_under:
            lines.append(f"{mode}: overall recall {entry['overall']:.3f} under --fail-under {fail_under}")
    return lines


def scorecard(tasks: TaskSet, summary: Mapping[str, Mapping[str, Any]], backend: str) -> Scorecard:
    categories = [c.value for c in TaskCategory]
    columns = ["backend", "mode", "tasks", "errors", *LAYER_LABELS.values(), *categories]
    with_baseline = tasks.baseline is not None
    if with_baseline:
        columns += ["baseline", "delta"]
    rows = []
    for mode, entry in summary.items():
        row = [backend, mode, str(entry["tasks"]), str(entry["errors"])]
        row += [f"{entry['layers'][layer]:.3f}" for layer in LAYERS]
        row += [f"{entry['by_category'][c]:.3f}" if c in entry["by_category"] else "–" for c in categories]
        if with_baseline:
            row += [f"{entry['baseline']['overall']:.3f}", f"{entry['baseline']['delta']:+.3f}"]
        rows.append(row)
    caption = [
        "recall = matched / (expected symbols + files), an item matching a surfaced name or path as a "
        "case-insensitive substring; layers are cumulative: search, + identifier lookups, + call-graph tools",
    ]
    return Scorecard(f"code tasks: {tasks.name} ({len(tasks.tasks)} tasks)", tuple(columns), rows, caption)


def markdown(
    tasks: TaskSet, project: Project, results: Sequence[CodeTaskResult], summary: Mapping[str, Mapping[str, Any]]
) -> str:
    lines = [f"# Code tasks: {tasks.name}", "", f"Tasks: `{tasks.source}`; code base: `{tasks.codebase}`.", ""]
    lines += ["## Code base", "", *(f"- {line}" for line in structure(project).lines()[:4]), ""]
    for mode, entry in summary.items():
        lines += [f"## {mode}", ""]
        lines += ["| layer | overall |", "|---|---:|"]
        lines += [tables.row([LAYER_LABELS[layer], f"{entry['layers'][layer]:.3f}"]) for layer in LAYERS]
        lines += ["", "| category | recall | baseline |", "|---|---:|---:|"]
        baseline = entry.get("baseline") or {}
        for category, value in entry["by_category"].items():
            base = baseline.get("by_category", {}).get(category)
            lines.append(tables.row([category, f"{value:.3f}", "–" if base is None else f"{base:.3f}"]))
        if baseline:
            verdict = "REGRESSION" if baseline["regression"] else "no regression"
            lines += ["", f"Overall {entry['overall']:.3f} against the baseline's {baseline['overall']:.3f} "
                      f"(delta {baseline['delta']:+.3f}): {verdict}."]  # fmt: skip
        lines += ["", "| task | category | search | +identifiers | +graph | baseline | missed |"]
        lines.append("|---|---|---:|---:|---:|---:|---|")
        for row in (r for r in results if r.mode == mode):
            layers = [f"{row.layers[layer]:.3f}" if layer in row.layers else "–" for layer in LAYERS]
            base = baseline.get("tasks", {}).get(row.task_id)
            missed = row.error or ", ".join(row.missed) or ""
            lines.append(
                tables.row([row.task_id, row.category, *layers, "–" if base is None else f"{base:.3f}", missed])
            )
        lines.append("")
    return "\n".join(lines)


def build_report(
    tasks: TaskSet,
    project: Project,
    results: Sequence[CodeTaskResult],
    run: RunInfo,
    fail_under: float | None,
    settings: Mapping[str, Any],
) -> Report:
    """`settings`: what the scores depend on, as a baseline of them records it (the envelope's `settings`)."""
    summary = summarize(results, tasks)
    data = {
        "machine": machine(),
        "task_set": {"name": tasks.name, "source": tasks.source, "codebase": str(tasks.codebase)},
        "structure": structure(project).to_json(),
        "summary": summary,
        "results": [r.to_json() for r in results],
    }
    return Report(
        stem=f"code-tasks-{re.sub(r'[^A-Za-z0-9._-]+', '-', tasks.name)}-{run.backend.backend}",
        data=data,
        markdown=markdown(tasks, project, results, summary),
        scorecard=scorecard(tasks, summary, run.backend.backend),
        scores=score_sheets(results, summary),
        settings=settings,
        gates=gates(summary, fail_under),
    )
