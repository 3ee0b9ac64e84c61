"""A report as one self-contained HTML page: scorecard, charts and every item as a row that opens to
what it retrieved and why it was judged so. Built from the report's JSON document alone (envelope
and body), so `harness report render` re-renders any report, old ones too; nothing is fetched when
the page opens (styles, script and charts are inline), and the rows travel as compact JSON that a
small script lists a page at a time, so thousands of items stay a few MB."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from harness.reports.banners import banners
from harness.reports.categories import category_table
from harness.reports.fields import CHECKSUM, FIELDS
from harness.reports.html.charts import charts
from harness.reports.html.marks import marks
from harness.reports.html.rows import ERROR, FAIL, PASS, SKIPPED, Row, rows

GENERATOR = '<meta name="generator" content="memory-retrieval-harness">'
"""The tag that marks a page as this harness's (so re-rendering may replace it)."""
VERDICTS = (PASS, FAIL, ERROR, SKIPPED)
RUN_FIELDS = (
    "system",
    "harness_version",
    "git_commit",
    "started_at",
    "wall_s",
    "files",
    "inputs",
    "origin",
    "shard",
)
"""Envelope fields shown under 'Run'; `settings` and `backend` have their own sections, and
`not_applicable` and `incomplete` their banners."""


def environment() -> Environment:
    return Environment(
        loader=PackageLoader("harness.reports.html", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def inline(env: Environment, name: str) -> Markup:
    """A template folder's file as it is (the page's style and script), to inline verbatim."""
    assert env.loader is not None
    return Markup(env.loader.get_source(env, name)[0])


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no `</script>` or comment opener can end it early."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _backend(document: Mapping[str, Any]) -> str:
    backend = document.get("backend")
    return str(backend.get("backend", "")) if isinstance(backend, Mapping) else ""


def _summaries(document: Mapping[str, Any]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """The kind's own summary per backend x mode: a list of rows (belief suites) or a dict per mode."""
    summary, backend = document.get("summary"), _backend(document)
    if isinstance(summary, list):
        return {(str(s.get("backend", backend)), str(s.get("mode", ""))): s for s in summary if isinstance(s, Mapping)}
    if isinstance(summary, Mapping):
        return {(backend, str(mode)): s for mode, s in summary.items() if isinstance(s, Mapping)}
    return {}


def _summary_cells(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The pass types and latency percentiles a kind's summary holds, under one set of names."""
    cells: dict[str, Any] = {}
    if isinstance(summary.get("pass_types"), Mapping):
        cells["pass types"] = " / ".join(f"{n} {name}" for name, n in summary["pass_types"].items())
    latency = summary.get("latency_ms")
    quantiles = (
        latency if isinstance(latency, Mapping) else {"p50": summary.get("p50_ms"), "p95": summary.get("p95_ms")}
    )
    for name in ("p50", "p95"):
        if isinstance(quantiles.get(name), int | float):
            cells[f"{name} ms"] = quantiles[name]
    return cells


def _scorecard(document: Mapping[str, Any], listed: list[Row]) -> tuple[list[str], list[list[Any]]]:
    """Per backend x mode: how many items got each verdict, the pass types and latency the kind's
    summary holds, then the overall scores of the report's score sheets."""
    scores: Mapping[str, Any] = document.get("scores") or {}
    metrics = list(dict.fromkeys(m for sheet in scores.values() for m in (sheet.get("overall") or {})))
    counts = Counter((row.backend, row.mode, row.verdict) for row in listed)
    pairs = list(dict.fromkeys((row.backend, row.mode) for row in listed))
    pairs += [(_backend(document), mode) for mode in scores if not any(m == mode for _, m in pairs)]
    summaries = _summaries(document)
    cells = {pair: _summary_cells(summaries.get(pair, {})) for pair in pairs}
    extra = list(dict.fromkeys(name for by_pair in cells.values() for name in by_pair))
    table = [
        [
            b,
            m,
            *(counts[(b, m, v)] for v in VERDICTS),
            *(cells[(b, m)].get(name) for name in extra),
            *((scores.get(m) or {}).get("overall", {}).get(k) for k in metrics),
        ]
        for b, m in pairs
    ]
    return ["backend", "mode", *VERDICTS, *extra, *metrics], table


def render_html(document: Mapping[str, Any], edited: str | None = None) -> str:
    """The page for one report document (as its JSON file holds it); `edited`: why its checksum does
    not vouch for it, where it was read with `--allow-edited` (a banner says so). A kind not
    applicable to the system shows its banner and the report's fields: no scorecard, chart or item,
    as nothing ran."""
    spec, listed = rows(document)
    unit = spec.unit if spec else "items"
    ran = not document.get("not_applicable")
    columns, scorecard = _scorecard(document, listed)
    body = {k: v for k, v in document.items() if k not in (*FIELDS, CHECKSUM) and k != (spec.key if spec else None)}
    summary = body.pop("summary", None)
    texts = body.pop("memories", None)  # a belief report's memory texts: shown beside their ids
    sections = {
        "Settings the scores depend on": document.get("settings"),
        "Suites and their rulesets": meta.get("suites") if isinstance(meta := document.get("meta"), Mapping) else None,
        "Backend": document.get("backend"),
        "Run": {k: document[k] for k in RUN_FIELDS if document.get(k) is not None},
        "Summary as reported": summary if ran else None,  # else counts of nothing
        **{f"Report: {k}": v for k, v in body.items()},
    }
    data = {
        "rows": [[r.verdict, r.id, r.mode, r.backend, r.category, r.title] for r in listed],  # as report.js reads them
        "items": [r.item for r in listed],
        "marks": [marks(r.item) for r in listed],
        "texts": texts if isinstance(texts, Mapping) else {},
        "sections": {name: value for name, value in sections.items() if value not in (None, {}, [])},
    }
    backend_name = _backend(document) or (scorecard[0][0] if scorecard else "")
    suite = document.get("suite") or ""
    if isinstance(suite, Mapping):  # an old code-task report kept its task set here
        suite = suite.get("name", "")
    env = environment()
    drawn = charts(document, listed) if ran else []
    return env.get_template("report.html.j2").render(
        generator=Markup(GENERATOR),
        title=" · ".join(str(p) for p in (spec.kind if spec else "report", suite, backend_name) if p),
        kind=spec.kind if spec else None,
        unit=unit,
        rule=spec.rule if spec else None,
        banners=banners(document, unit),
        ran=ran,
        categories=category_table(document.get("scores") or {}),
        shard=document.get("shard"),
        edited=edited,
        columns=columns,
        scorecard=scorecard,
        charts=[(chart.title, Markup(chart.svg)) for chart in drawn],
        data=Markup(_script_json(data)),
        style=inline(env, "report.css"),
        script=inline(env, "report.js"),
    )


def page_or_note(document: Mapping[str, Any]) -> str:
    """The page, or, if drawing it fails, a page that says why: a bug of the page must never cost a
    finished run its JSON (the writer writes all of a report's files or none)."""
    try:
        return render_html(document)
    except Exception as exc:  # noqa: BLE001 - any failure of the page; the run's own files come first
        return note_page(f"{type(exc).__name__}: {exc}")


def note_page(why: str) -> str:
    """A page that says why the report's page could not be drawn, and how to draw it again."""
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">{GENERATOR}'
        "<title>report page not drawn</title></head><body>"
        f"<p>This report's page could not be drawn ({escape(why)}). "
        "Its JSON beside this file is complete: <code>harness report render</code> draws the page again.</p>"
        "</body></html>\n"
    )
