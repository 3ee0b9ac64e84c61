"""The page's charts, drawn as inline SVG from the report's own numbers (matplotlib, the `chart`
extra): without matplotlib the page says so and shows the same numbers as tables."""

from __future__ import annotations

import importlib.util
import io
import math
import re
from collections.abc import Callable, Mapping, Sequence
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


def _numbers(values: Mapping[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in values.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def figure_class() -> Any:
    """matplotlib's `Figure`, imported on first use (a page's process imports it before its report
    arrives: `html/child.py`). Not pyplot: a figure only saved as SVG needs no backend or figure
    manager, and without them it draws the same bytes, leaving no backend or open figure behind."""
    from matplotlib.figure import Figure

    return Figure


FIXED_MARGINS = {"left": 0.12, "right": 0.98, "top": 0.97, "bottom": 0.15}
"""Where the plot lies in a chart whose tick labels are short numbers: laying out such a chart by
measuring its texts (matplotlib's constrained layout) cost a report's page more than drawing it."""


def _svg(draw: Callable[[Any], None], width: float = 5.6, height: float = 3.0, *, measured: bool = True) -> str:
    """The chart `draw` draws, laid out by measuring its texts (labels of any length), or, if not
    `measured`, within `FIXED_MARGINS`."""
    import matplotlib

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "harness", "font.size": 9}):
        figure = figure_class()(figsize=(width, height), constrained_layout=measured)
        axis = figure.subplots()
        if not measured:
            figure.subplots_adjust(**FIXED_MARGINS)
        draw(axis)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _bars(series: Series, ylabel: str) -> Callable[[Any], None]:
    """Grouped bars: one group per label, one bar per series."""
    labels = list(dict.fromkeys(label for values in series.values() for label in values))
    width = 0.8 / max(1, len(series))

    def draw(axis: Any) -> None:
        for position, (name, values) in enumerate(series.items()):
            xs = [i + position * width for i, label in enumerate(labels) if label in values]
            axis.bar(xs, [values[label] for label in labels if label in values], width, label=name)
        axis.set_xticks([i + width * (len(series) - 1) / 2 for i in range(len(labels))], labels)
        axis.tick_params(axis="x", labelrotation=30 if len(labels) > 4 else 0)
        for tick in axis.get_xticklabels():
            tick.set_horizontalalignment("right" if len(labels) > 4 else "center")
        axis.set_ylabel(ylabel)
        axis.legend(fontsize=8)

    return draw


def _overall(scores: Mapping[str, Any]) -> Chart | None:
    series = {mode: _numbers(sheet.get("overall") or {}) for mode, sheet in scores.items()}
    if not any(series.values()):
        return None
    return Chart("Overall scores per mode", _svg(_bars(series, "score")))


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
            return Chart(f"Per category: {metric}", _svg(_bars(series, metric), height=3.8))
    return None


def _plain_log_labels(axis: Any) -> None:
    """A log axis labels the ticks it labels by default ("0.3", "10", "1000"), as plain text: its
    default labels are math text ("10^1"), whose parser alone cost a page more than its chart."""
    from matplotlib.ticker import LogFormatter

    class Plain(LogFormatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return f"{x:g}" if super().__call__(x, pos) else ""

    axis.set_major_formatter(Plain())
    axis.set_minor_formatter(Plain())


def _latency(rows: Sequence[Row]) -> Chart | None:
    by_mode: dict[str, list[float]] = {}
    for row in rows:
        value = row.item.get("latency_ms")
        if isinstance(value, int | float) and value > 0:
            by_mode.setdefault(f"{row.backend} {row.mode}".strip(), []).append(float(value))
    if not by_mode:
        return None

    every = [v for values in by_mode.values() for v in values]
    low, high = math.log10(min(every)), math.log10(max(every))
    edges = [10 ** (low + (high - low + 1e-9) * i / 30) for i in range(31)]

    def draw(axis: Any) -> None:
        for name, values in by_mode.items():
            axis.hist(values, bins=edges, histtype="step", linewidth=1.5, label=name)
        axis.set_xscale("log")
        _plain_log_labels(axis.xaxis)
        axis.set_xlabel("latency per item (ms, log scale)")
        axis.set_ylabel("items")
        axis.legend(fontsize=8)

    return Chart("Latency distribution", _svg(draw, measured=False))


def _recall_curves(summary: Mapping[str, Any]) -> Chart | None:
    """Dataset runs: recall_any@k and recall_all@k by k, per mode and level."""
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

    def draw(axis: Any) -> None:
        for name, points in curves.items():
            points.sort()
            axis.plot([k for k, _ in points], [v for _, v in points], marker="o", label=name)
        axis.set_xlabel("k")
        axis.set_ylabel("recall")
        axis.set_ylim(0, 1.05)
        axis.legend(fontsize=7)

    return Chart("Recall@k per mode", _svg(draw, measured=False))


def _before_after(summary: Mapping[str, Any]) -> Chart | None:
    """Lifecycle runs: each retrieval metric before and after consolidation, per mode."""
    series: dict[str, dict[str, float]] = {}
    for mode, per_mode in summary.items():
        if isinstance(per_mode, Mapping) and "before" in per_mode and "after" in per_mode:
            for when in ("before", "after"):
                series[f"{mode} {when}"] = _numbers(per_mode[when] or {})
    if not series:
        return None
    return Chart("Before and after consolidation", _svg(_bars(series, "score")))


def _efficiency(summary: Mapping[str, Any]) -> Chart | None:
    """Conversation runs: the tokens the context sends against the history and an agent's reads."""
    series = {
        mode: {k: v for k, v in _numbers(per_mode["efficiency"]).items() if k.endswith("_tokens")}
        for mode, per_mode in summary.items()
        if isinstance(per_mode, Mapping) and isinstance(per_mode.get("efficiency"), Mapping)
    }
    if not any(series.values()):
        return None
    return Chart("Conversation efficiency: tokens", _svg(_bars(series, "tokens")))


def chart_library() -> bool:
    """Whether matplotlib (the `chart` extra) is installed."""
    return importlib.util.find_spec("matplotlib") is not None


def charts(document: Mapping[str, Any], rows: Sequence[Row]) -> list[Chart]:
    """Every chart the report's numbers allow; none (and no error) without matplotlib."""
    if not chart_library():
        return []
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
