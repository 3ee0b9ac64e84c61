"""Lifecycle run reports: the terminal scorecard's rows (plain strings, text bars) and Markdown,
both from the JSON data the kind writes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.reports import tables
from harness.reports.escape import md

BAR_WIDTH = 10

LABELS = {
    "precision": "P@5 graded (hits / min(5, returned); / 5 under fixed-cutoff rules)",
    "trec_precision": "P@5 (trec_eval: hits / 5)",
    "recall": "R@5",
    "mrr": "MRR",
    "ndcg": "nDCG@5",
    "noise_suppression": "noise suppression",
    "signal_retention": "signal retention",
    "dedup": "dedup effectiveness",
    "signal_survival": "raw events: signal survival",
}


def bar(value: float | None) -> str:
    """`█████░░░░░ 0.50` for a share in [0, 1]; `-` when there is none."""
    if value is None:
        return "-"
    filled = round(max(0.0, min(1.0, value)) * BAR_WIDTH)
    return f"{'█' * filled}{'░' * (BAR_WIDTH - filled)} {value:.2f}"


def _rows_of(summary: Mapping[str, Any]) -> list[list[str]]:
    mode, grades = summary["mode"], summary["grades"]
    rows = []
    for name in ("precision", "trec_precision", "recall", "mrr", "ndcg"):
        if name in summary["after"]:
            rows.append(
                [
                    mode,
                    LABELS[name],
                    bar(summary["before"].get(name)),
                    bar(summary["after"][name]),
                    grades.get(name, ""),
                ]
            )
    for name, value in summary["lifecycle"].items():
        rows.append([mode, LABELS[name], "", bar(value), grades.get(name, "")])
    raw = summary["raw"]
    if raw:
        rows.append([mode, LABELS["signal_survival"], "", bar(raw.get("signal_survival")), ""])
        rows.append([mode, "raw events: noise suppression", "", bar(raw.get("noise_suppression")), ""])
        rows.append([mode, "raw events: P@5 (concepts)", "", bar(raw.get("precision_after")), ""])
    rows.append([mode, "overall", "", "", summary["grade"] or "-"])
    return rows


COUNTS = frozenset({"encoded", "episodes"})
"""Lifecycle values that are counts, not shares."""


def _lifecycle(values: Mapping[str, float | None]) -> str:
    return ", ".join(f"{k} {v:g}" if k in COUNTS else f"{k} {v:.2f}" for k, v in values.items() if v is not None)


def _scenario_line(result: Mapping[str, Any]) -> str:
    head = f"{result['mode']} {result['scenario']}"
    if result["error"]:
        return f"{head}: error: {result['error']}"
    before, after, life = result["before"], result["after"], result["lifecycle"]
    ranking = f"P@5 {before['precision']:.2f}->{after['precision']:.2f}, MRR {after['mrr']:.2f}"
    return f"{head}: {result['grade']}  {ranking}, {_lifecycle(life)}"


def scorecard_rows(data: Mapping[str, Any], verbose: bool) -> tuple[tuple[str, ...], list[list[str]], list[str]]:
    columns = ("mode", "metric", "before", "after", "grade")
    rows = [row for mode in data["modes"] for row in _rows_of(data["summary"][mode])]
    caption = [_scenario_line(r) for r in data["results"]]
    caption += [f"{mode}: not run ({why})" for mode, why in data["unsupported_modes"].items()]
    caption += data["warnings"]
    if verbose:
        caption += [
            f"{r['mode']} {r['scenario']} cycle {i}: t={c['at']:g} min, decayed {c['decayed']}, "
            f"fading {c['fading']}, archived {c['archived']}, merged {len(c['merged'])}, associations {c['associations']}"
            for r in data["results"]
            for i, c in enumerate(r["cycles"], 1)
        ]
        caption += [
            f"{r['mode']} {r['scenario']} {q['query']!r}: before {[x['id'] for x in q['before']]}, "
            f"after {[x['id'] for x in q['after']]}"
            for r in data["results"]
            for q in r["queries"]
        ]
        caption += [f"setting {s['name']} = {s['value']}" for s in data["setting_docs"]]
    return columns, rows, caption


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    return tables.table(columns, rows)


def render_markdown(data: Mapping[str, Any]) -> str:
    backend = data["backend"]
    lines = [
        f"# Lifecycle scenarios: {md(data['suite'])}",
        "",
        f"Backend {md(backend['backend'])} ({md(backend['server_version'])}), modes {md(', '.join(data['modes']))}, "
        f"started {data['started_at']}, {data['wall_s']:.1f} s.",
        "",
    ]
    if "ruleset" in data:  # reports written before the lifecycle rulesets have none
        lines += [f"Rules: {md(data['ruleset'])} (retrieval and judging; `harness/pipeline/lifecycle/rules.py`).", ""]
    columns, rows, _ = scorecard_rows(data, verbose=False)
    lines += ["## Scores", "", *_table(columns, rows), ""]
    lines += ["## Scenarios", ""]
    scenario_rows = [
        [
            r["mode"],
            r["scenario"],
            "raw events" if r["raw"] else "direct",
            r["error"] or r["grade"],
            *(f"{r['after'].get(n, 0):.3f}" if not r["error"] else "" for n in ("precision", "mrr", "ndcg")),
            _lifecycle(r["lifecycle"]),
        ]
        for r in data["results"]
    ]
    lines += [*_table(("mode", "scenario", "kind", "grade", "P@5", "MRR", "nDCG", "lifecycle"), scenario_rows), ""]
    if data["unsupported_modes"]:
        lines += [f"- {md(mode)}: not run ({md(why)})" for mode, why in data["unsupported_modes"].items()] + [""]
    if data["warnings"]:
        lines += ["## Warnings", "", *(f"- {md(w)}" for w in data["warnings"]), ""]
    lines += [
        "## Settings",
        "",
        *_table(
            ("setting", "value", "what it does"), [[s["name"], s["value"], s["doc"]] for s in data["setting_docs"]]
        ),
        "",
    ]
    return "\n".join(lines)
