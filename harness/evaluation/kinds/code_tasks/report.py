"""The report of a code-task run on one backend, under the set's code-task ruleset: recall per mode
(the task's own tools alone, `fixed`, and with the agent pass, as nano-brain's results give them;
and after each answering layer), per category and per task with the record that matched each
expected item, the project's structure, the fields the importer could not judge, and, for a set
with a baseline, nano-brain's comparison (a run regresses when its overall recall is under the
baseline's by more than 0.001; a subset run against the same tasks of the baseline)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from harness.evaluation.kinds.code_tasks.results import CodeTaskResult
from harness.metrics.surfaced import by_category, mean_recall, round3
from harness.models.code_task import REGRESSION_MARGIN, TaskSet
from harness.models.project import Project
from harness.models.scoresheet import CaseScore, ScoreSheet
from harness.pipeline.code_answer import LAYERS
from harness.pipeline.code_rules import code_rules
from harness.reports import tables
from harness.reports.document import Report, RunInfo, Scorecard
from harness.reports.escape import md, md_code
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
        fixed: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            categories[row.category].append(row.recall or 0.0)
            fixed[row.category].append(row.fixed_recall or 0.0)
        overall = mean_recall([row.recall or 0.0 for row in rows])
        entry: dict[str, Any] = {
            "tasks": len(rows),
            "errors": sum(1 for row in rows if row.error),
            "overall": overall,
            "fixed": mean_recall([row.fixed_recall or 0.0 for row in rows]),
            "layers": {layer: mean_recall([row.layers.get(layer, 0.0) for row in rows]) for layer in LAYERS},
            "by_category": by_category(categories),
            "fixed_by_category": by_category(fixed),
        }
        entry["bench_results"] = bench_results(rows, entry, code_rules(tasks.rules).agent_pass)
        if tasks.baseline is not None:
            ran = [row.task_id for row in rows]
            base = baseline_overall(tasks, ran)
            entry["baseline"] = {
                "overall": base,
                "delta": round(overall - base, 3),
                "regression": overall < base - REGRESSION_MARGIN,
                "by_category": baseline_by_category(tasks, ran),
                "tasks": {t.id: t.recall for t in tasks.baseline.tasks},
                "missing": [task for task in ran if task not in {t.id for t in tasks.baseline.tasks}],
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


def baseline_by_category(tasks: TaskSet, ran: Sequence[str]) -> dict[str, float]:
    """The baseline's category means, over the same tasks when the run ran only some of them."""
    assert tasks.baseline is not None
    recalls = {t.id: t for t in tasks.baseline.tasks}
    if not set(ran) < set(recalls):
        return dict(tasks.baseline.by_category)
    categories: dict[str, list[float]] = defaultdict(list)
    for task in ran:
        categories[recalls[task].category].append(recalls[task].recall)
    return by_category(categories)


def bench_results(rows: Sequence[CodeTaskResult], entry: Mapping[str, Any], agent: bool) -> dict[str, Any]:
    """The mode's results in nano-brain's `results_current.json` shape (empty lists as null, and
    with an agent pass `fixed_recall`/`agent_recall` rounded and left out when 0, as Go writes
    them): saved as `baseline_v1.json` beside a task file, it is the baseline later runs check."""
    tasks = []
    for row in rows:
        task: dict[str, Any] = {"id": row.task_id, "category": row.category, "recall": row.recall or 0.0}
        if agent:
            for key, value in (("fixed_recall", row.fixed_recall), ("agent_recall", row.recall)):
                if value:
                    task[key] = round3(value)
        tasks.append(task | {"matched": row.matched or None, "missed": row.missed or None})
    return {"version": "1", "overall": entry["overall"], "by_category": entry["by_category"], "tasks": tasks}


def score_sheets(results: Sequence[CodeTaskResult], summary: Mapping[str, Mapping[str, Any]]) -> dict[str, ScoreSheet]:
    sheets = {}
    for mode, entry in summary.items():
        overall = {
            "recall": entry["overall"],
            "recall_fixed": entry["fixed"],
            **{f"recall_{layer}": v for layer, v in entry["layers"].items()},
        }
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
    categories = sorted({c for entry in summary.values() for c in entry["by_category"]})
    columns = ["backend", "mode", "tasks", "errors", "fixed", "recall", *LAYER_LABELS.values(), *categories]
    with_baseline = tasks.baseline is not None
    if with_baseline:
        columns += ["baseline", "delta"]
    rows = []
    for mode, entry in summary.items():
        row = [backend, mode, str(entry["tasks"]), str(entry["errors"]), f"{entry['fixed']:.3f}"]
        row += [f"{entry['overall']:.3f}"] + [f"{entry['layers'][layer]:.3f}" for layer in LAYERS]
        row += [f"{entry['by_category'][c]:.3f}" if c in entry["by_category"] else "–" for c in categories]
        if with_baseline:
            row += [f"{entry['baseline']['overall']:.3f}", f"{entry['baseline']['delta']:+.3f}"]
        rows.append(row)
    caption = [
        "recall = matched / (expected symbols + files), an item matching a surfaced name or path as a "
        "case-insensitive substring; fixed = the tasks' own tools alone, recall = with the agent pass; "
        "layers are cumulative: search, + identifier lookups, + call-graph tools",
        f"ruleset {tasks.rules}"
        + (f"; {len(tasks.warnings)} fields the importer cannot judge" if tasks.warnings else ""),
    ]
    return Scorecard(f"code tasks: {tasks.name} ({len(tasks.tasks)} tasks)", tuple(columns), rows, caption)


def markdown(
    tasks: TaskSet, project: Project, results: Sequence[CodeTaskResult], summary: Mapping[str, Mapping[str, Any]]
) -> str:
    lines = [f"# Code tasks: {md(tasks.name)}", "", f"Tasks: {md_code(tasks.source)}; code base: "
             f"{md_code(tasks.codebase)}; ruleset {md_code(tasks.rules)}.", ""]  # fmt: skip
    lines += ["## Code base", "", *(f"- {md(line)}" for line in structure(project).lines()[:4]), ""]
    if tasks.warnings:
        lines += ["## What the importer cannot judge", "", *(f"- {md(line)}" for line in tasks.warnings), ""]
    for mode, entry in summary.items():
        lines += [f"## {md(mode)}", ""]
        lines += ["| layer | overall |", "|---|---:|"]
        lines += [
            tables.row(["fixed tools", f"{entry['fixed']:.3f}"]),
            tables.row(["recall", f"{entry['overall']:.3f}"]),
        ]
        lines += [tables.row([LAYER_LABELS[layer], f"{entry['layers'][layer]:.3f}"]) for layer in LAYERS]
        lines += ["", "| category | fixed | recall | baseline |", "|---|---:|---:|---:|"]
        baseline = entry.get("baseline") or {}
        for category, value in entry["by_category"].items():
            base = baseline.get("by_category", {}).get(category)
            fixed = entry["fixed_by_category"].get(category, 0.0)
            lines.append(tables.row([category, f"{fixed:.3f}", f"{value:.3f}", "–" if base is None else f"{base:.3f}"]))
        if baseline:
            verdict = "REGRESSION" if baseline["regression"] else "no regression"
            lines += ["", f"Overall {entry['overall']:.3f} against the baseline's {baseline['overall']:.3f} "
                      f"(delta {baseline['delta']:+.3f}): {verdict}."]  # fmt: skip
        lines += ["", "| task | category | fixed | recall | search | +identifiers | +graph | baseline | missed |"]
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
        rows = [r for r in results if r.mode == mode]
        for row in rows:
            layers = [f"{row.layers[layer]:.3f}" if layer in row.layers else "–" for layer in LAYERS]
            base = baseline.get("tasks", {}).get(row.task_id)
            missed = row.error or ", ".join(row.missed) or ""
            scores = [f"{row.fixed_recall or 0.0:.3f}", f"{row.recall or 0.0:.3f}", *layers]
            lines.append(
                tables.row([row.task_id, row.category, *scores, "–" if base is None else f"{base:.3f}", missed])
            )
        lines += ["", "What matched each expected item (record or outside name, and the tool):", ""]
        for row in rows:
            matched = "; ".join(f"{md_code(item)} ← {md(by)}" for item, by in row.matched_by.items())
            lines += [f"- {md(row.task_id)}: {matched}"]
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
