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
from markupsafe import Markup

from harness.reports.envelope import FIELDS
from harness.reports.html.charts import chart_library, charts
from harness.reports.html.rows import ERROR, FAIL, PASS, SKIPPED, rows

GENERATOR = '<meta name="generator" content="memory-retrieval-harness">'
"""The tag that marks a page as this harness's (so re-rendering may replace it)."""
VERDICTS = (PASS, FAIL, ERROR, SKIPPED)
RUN_FIELDS = ("harness_version", "git_commit", "started_at", "wall_s", "files", "inputs", "origin", "shard")
"""Envelope fields shown under 'Run'; `settings` and `backend` have their own sections."""


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("harness.reports.html", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no `</script>` or comment opener can end it early."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _scorecard(document: Mapping[str, Any], listed: list[Any]) -> tuple[list[str], list[list[Any]]]:
    """Per backend x mode: how many items got each verdict, then the overall scores the report holds."""
    scores: Mapping[str, Any] = document.get("scores") or {}
    metrics = list(dict.fromkeys(m for sheet in scores.values() for m in (sheet.get("overall") or {})))
    counts = Counter((row.backend, row.mode, row.verdict) for row in listed)
    pairs = list(dict.fromkeys((row.backend, row.mode) for row in listed))
    backend = (document.get("backend") or {}).get("backend", "") if isinstance(document.get("backend"), dict) else ""
    pairs += [(backend, mode) for mode in scores if not any(m == mode for _, m in pairs)]
    table = [
        [
            b,
            m,
            *(counts[(b, m, v)] for v in VERDICTS),
            *((scores.get(m) or {}).get("overall", {}).get(k) for k in metrics),
        ]
        for b, m in pairs
    ]
    return ["backend", "mode", *VERDICTS, *metrics], table


def render_html(document: Mapping[str, Any]) -> str:
    """The page for one report document (as its JSON file holds it)."""
    spec, listed = rows(document)
    columns, scorecard = _scorecard(document, listed)
    body = {k: v for k, v in document.items() if k not in FIELDS and k != (spec.key if spec else None)}
    sections = {
        "Settings the scores depend on": document.get("settings"),
        "Backend": document.get("backend"),
        "Run": {k: document[k] for k in RUN_FIELDS if document.get(k) is not None},
        "Summary as reported": body.pop("summary", None),
        **{f"Report: {k}": v for k, v in body.items()},
    }
    data = {
        "columns": ["verdict", "id", "mode", "backend", "category", "title"],
        "rows": [[r.verdict, r.id, r.mode, r.backend, r.category, r.title] for r in listed],
        "items": [r.item for r in listed],
        "sections": {name: value for name, value in sections.items() if value not in (None, {}, [])},
    }
    backend_name = scorecard[0][0] if scorecard else ""
    suite = document.get("suite") or ""
    env = _environment()
    source = lambda name: Markup(env.loader.get_source(env, name)[0])  # type: ignore[union-attr]  # noqa: E731
    drawn = charts(document, listed)
    return env.get_template("report.html.j2").render(
        generator=Markup(GENERATOR),
        title=" · ".join(str(p) for p in (spec.kind if spec else "report", suite, backend_name) if p),
        kind=spec.kind if spec else None,
        unit=spec.key if spec else "items",
        rule=spec.rule if spec else None,
        incomplete=document.get("incomplete_reason") if document.get("incomplete") else None,
        shard=document.get("shard"),
        columns=columns,
        scorecard=scorecard,
        charts=[(chart.title, Markup(chart.svg)) for chart in drawn],
        charts_missing=not drawn and not chart_library(),
        data=Markup(_script_json(data)),
        style=source("report.css"),
        script=source("report.js"),
    )
