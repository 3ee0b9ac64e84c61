"""The page's charts, drawn as inline SVG from the report's own numbers with pygal, a library that
writes SVG and nothing else: every run draws its page, and pygal draws a chart in about 10 ms after
a 0.1 s import where matplotlib took 0.2 to 0.4 s a chart after a 0.5 s import (matplotlib still
draws the PNG files, the `chart` extra)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.reports.categories import category_table
from harness.reports.html.rows import Row


@dataclass(frozen=True)
class Chart:
    title: str
    svg: str


Series = Mapping[str, Mapping[str, float]]
"""Per series (a mode), a value per label (a metric, a category)."""

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
"""matplotlib's default cycle (tab10), so a mode has the colour it has in the PNG charts."""


def _numbers(values: Mapping[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in values.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def _config(**settings: Any) -> Any:
    """pygal's settings for a page's chart: no script fetched (the page opens from disk), the page's
    font, a white ground as the page's chart frame has."""
    import pygal
    from pygal.style import Style

    style = Style(
        background="#fff",
        plot_background="#fff",
        foreground="#1b1f24",
        foreground_strong="#1b1f24",
        foreground_subtle="#59636e",
        colors=COLORS,
        font_family="system-ui, -apple-system, 'Segoe UI', sans-serif",
        label_font_size=11,
        major_label_font_size=11,
        legend_font_size=11,
        title_font_size=12,
        opacity=".85",
    )
    defaults = {
        "style": style,
        "js": [],
        "width": 560,
        "height": 300,
        "explicit_size": True,  # width and height in the element: the page's flex row sizes it by them
        "legend_at_bottom": True,
        "truncate_label": -1,  # never cut: measures that differ only at their end (recall_any@1, @5) stay apart
        "max_scale": 6,  # value ticks: a small chart stays legible
        "value_formatter": _value,
    }
    return pygal.Config(**{**defaults, **settings})


def _value(value: float) -> str:
    """A value as a chart labels it: three significant digits, or a whole number from 100 (tokens)."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _drawn(chart: Any, name: str, title: str) -> Chart:
    """The chart's SVG element, the same bytes for the same numbers: named `chart-<name>` (pygal
    draws a random id) and titled `title` (its accessible name), without pygal's comments (one is
    dated) and its tooltip script's settings (the script itself is never fetched). Each bar or
    point gets a `<title>`, the browser's own hover text, from the `<desc>` pygal keeps for that
    script."""
    from lxml import etree

    chart.uuid = name
    root = chart.render_tree()
    for node in [n for n in root.iter() if n.tag is etree.Comment or n.tag == "script"]:
        node.getparent().remove(node)
    root.find("title").text = title
    names = [settings.get("title", "") for _, settings in chart.raw_series]
    for series in root.iter("g"):
        if (match := re.fullmatch(r"series serie-(\d+) .*", series.get("class", ""))) is None:
            continue
        for value in [d for d in series.iter("desc") if d.get("class") == "value"]:
            shape = value.getparent()
            label = next((d.text for d in shape.iter("desc") if d.get("class") == "x_label"), None)
            hover = etree.Element("title")
            hover.text = " · ".join(filter(None, (names[int(match.group(1))], label, value.text)))
            shape.insert(0, hover)
    return Chart(title, etree.tostring(root, encoding="unicode"))


def _bars(series: Series, ylabel: str, name: str, title: str, height: int = 300) -> Chart:
    """Grouped bars: one group per label, one bar per series. A level every label names
    (`session/recall_any@1`, `session/mrr`) is said once, in the axis title."""
    import pygal

    labels = list(dict.fromkeys(label for values in series.values() for label in values))
    levels = {label.partition("/")[0] if "/" in label else None for label in labels}
    level = levels.pop() if len(labels) > 1 and len(levels) == 1 else None
    rotation = 0 if len(labels) <= 4 else 30 if len(labels) <= 10 else 60
    chart = pygal.Bar(
        _config(height=height, y_title=f"{ylabel} ({level})" if level else ylabel, x_label_rotation=rotation)
    )
    chart.x_labels = [label.removeprefix(f"{level}/") if level else label for label in labels]
    for mode, values in series.items():
        chart.add(mode, [values.get(label) for label in labels])
    return _drawn(chart, name, title)


def _overall(scores: Mapping[str, Any]) -> Chart | None:
    series = {mode: _numbers(sheet.get("overall") or {}) for mode, sheet in scores.items()}
    if not any(series.values()):
        return None
    return _bars(series, "score", "overall", "Overall scores per mode")


def _categories(scores: Mapping[str, Any]) -> Chart | None:
    """Per category, the first measure of the per-category table (the one the kind leads with:
    pass rate, recall, score) that any category has."""
    table = category_table(scores)
    for index, metric in enumerate(table.measures):
        series: dict[str, dict[str, float]] = {}
        for row in table.rows:
            if (value := row.values[index]) is not None:
                series.setdefault(row.mode, {})[row.category] = value
        if series:
            return _bars(series, metric, "categories", f"Per category: {metric}", height=380)
    return None


def _log_ticks(low: float, high: float) -> list[dict[str, Any]]:
    """Ticks at the round values (1, 2, 5 times a power of ten) between 10**low and 10**high, placed
    at their log10 less `low` and labelled with the value; where none lies between, one at 10**low.
    Measured from `low`, the axis's 0 is its left edge: pygal draws the line at 0 solid, as an axis."""
    values = [m * 10.0**e for e in range(math.floor(low), math.ceil(high) + 1) for m in (1, 2, 5)]
    ticks = [{"value": math.log10(v) - low, "label": f"{v:g}"} for v in values if low <= math.log10(v) <= high]
    return ticks or [{"value": 0.0, "label": f"{10**low:.3g}"}]


def _latency(rows: Sequence[Row]) -> Chart | None:
    """Items per latency, in 30 bins equally wide on a log scale, per backend and mode (counted
    here: the page's process never imports numpy for its histogram)."""
    import pygal

    by_mode: dict[str, list[float]] = {}
    for row in rows:
        value = row.item.get("latency_ms")
        if isinstance(value, int | float) and value > 0:
            by_mode.setdefault(f"{row.backend} {row.mode}".strip(), []).append(math.log10(value))
    if not by_mode:
        return None
    every = [v for values in by_mode.values() for v in values]
    low, width = min(every), (max(every) - min(every) + 1e-9) / 30

    def ms(position: float) -> str:
        return _value(10 ** (low + position))

    chart = pygal.Histogram(
        _config(
            x_title="latency per item (ms, log scale)",
            y_title="items",
            fill=False,
            x_value_formatter=ms,  # a tick's hover title
            formatter=lambda bar: f"{bar[0]} item{'' if bar[0] == 1 else 's'}, {ms(bar[1])} to {ms(bar[2])} ms",
        )
    )
    chart.x_labels = _log_ticks(low, low + 30 * width)
    for name, values in by_mode.items():
        counts = [0] * 30
        for value in values:
            counts[min(29, int((value - low) / width))] += 1
        chart.add(name, [(n, i * width, (i + 1) * width) for i, n in enumerate(counts) if n])
    return _drawn(chart, "latency", "Latency distribution")


def _recall_curves(summary: Mapping[str, Any]) -> Chart | None:
    """Dataset runs: recall_any@k and recall_all@k by k, per mode and level."""
    import pygal

    curves: dict[str, list[tuple[int, float]]] = {}
    for mode, per_mode in summary.items():
        if not isinstance(per_mode, Mapping):
            continue
        for level, values in (per_mode.get("levels") or {}).items():
            for name, value in _numbers(values.get("metrics") or {}).items():
                if match := re.fullmatch(r"(recall_any|recall_all)@(\d+)", name):
                    curves.setdefault(f"{mode} {level} {match.group(1)}", []).append((int(match.group(2)), value))
    if not curves:
        return None
    chart = pygal.XY(_config(x_title="k", y_title="recall", range=(0, 1.05), legend_at_bottom_columns=2))
    for name, points in curves.items():
        chart.add(name, sorted(points))
    return _drawn(chart, "recall", "Recall@k per mode")


def _before_after(summary: Mapping[str, Any]) -> Chart | None:
    """Lifecycle runs: each retrieval metric before and after consolidation, per mode."""
    series: dict[str, dict[str, float]] = {}
    for mode, per_mode in summary.items():
        if isinstance(per_mode, Mapping) and "before" in per_mode and "after" in per_mode:
            for when in ("before", "after"):
                series[f"{mode} {when}"] = _numbers(per_mode[when] or {})
    if not series:
        return None
    return _bars(series, "score", "consolidation", "Before and after consolidation")


def _efficiency(summary: Mapping[str, Any]) -> Chart | None:
    """Conversation runs: the tokens the context sends against the history and an agent's reads."""
    series = {
        mode: {k: v for k, v in _numbers(per_mode["efficiency"]).items() if k.endswith("_tokens")}
        for mode, per_mode in summary.items()
        if isinstance(per_mode, Mapping) and isinstance(per_mode.get("efficiency"), Mapping)
    }
    if not any(series.values()):
        return None
    return _bars(series, "tokens", "efficiency", "Conversation efficiency: tokens")


def charts(document: Mapping[str, Any], rows: Sequence[Row]) -> list[Chart]:
    """Every chart the report's numbers allow."""
    scores = document.get("scores") or {}
    found = document.get("summary")
    summary: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    drawn = (
        _overall(scores),
        _categories(scores),
        _recall_curves(summary),
        _before_after(summary),
        _efficiency(summary),
        _latency(rows),
    )
    return [chart for chart in drawn if chart is not None]
