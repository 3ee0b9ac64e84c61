"""The leaderboard as a picture (matplotlib, the `chart` extra; imported only when drawn): one panel
per suite or dataset, a bar per backend x system x mode for the column's first measure that is not a
count of items (a PrecisionMemBench column's precision, not its passes), and a
system's published figure as a black diamond on its bars."""

from __future__ import annotations

import io
import warnings
from typing import Any

from harness.reports.leaderboard import COUNTS, Board, label


def _figure(board: Board) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = board.columns
    bars = [(backend, row) for backend, rows in board.backends.items() for row in rows]
    height = max(2.0, 0.35 * len(bars) + 1.2)
    figure, axes = plt.subplots(
        1, max(1, len(columns)), figsize=(3.6 * max(1, len(columns)) + 1.5, height), squeeze=False, sharey=True
    )
    labels = [f"{row.label.text} · {row.mode} · {backend}" for backend, row in bars]
    for axis, column in zip(axes[0], columns, strict=False):
        measure = next((m for m in column.measures if m.rpartition("/")[2] not in COUNTS), column.measures[0])
        values = [(row.cells.get(column.key) or {}).get(measure) for _, row in bars]
        axis.barh(range(len(bars)), [v or 0.0 for v in values], color="#4c78a8")
        for y, ((_, row), value) in enumerate(zip(bars, values, strict=True)):
            if column.key in row.not_applicable:
                axis.text(0.01, y, "n/a", va="center", fontsize=8)
            elif value is not None:
                axis.text(value, y, f" {value:.3f}", va="center", fontsize=8)
            figure_of = board.published_for(row, column)
            if figure_of is not None and measure in figure_of.measures:
                axis.plot(figure_of.measures[measure], y, "kD", markersize=6, label="published")
        axis.set_title(column.title.replace(" · ", "\n") + f"\n{label(measure)}", fontsize=9)
        axis.set_xlim(0, 1.15)
    axes[0][0].set_yticks(range(len(bars)), labels, fontsize=8)
    axes[0][0].invert_yaxis()
    handles = [h for axis in axes[0] for h in axis.get_legend_handles_labels()[0]]
    if handles:  # one key for the diamond, beside the panels
        figure.legend(handles[:1], ["published"], loc="upper right", fontsize=8)
    with (
        warnings.catch_warnings()
    ):  # long row labels: matplotlib keeps the layout it has and says so; the chart still draws
        warnings.simplefilter("ignore", UserWarning)
        figure.tight_layout(rect=(0, 0, 0.92 if handles else 1, 1))
    return figure


def leaderboard_chart(board: Board) -> tuple[bytes, str]:
    """The chart as PNG bytes, and the same chart as inline SVG for the page."""
    import matplotlib.pyplot as plt

    figure = _figure(board)
    try:
        png = io.BytesIO()
        figure.savefig(png, format="png", dpi=100)
        svg = io.StringIO()
        with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "harness"}):
            figure.savefig(svg, format="svg", metadata={"Date": None})
    finally:
        plt.close(figure)
    text = svg.getvalue()
    return png.getvalue(), text[text.index("<svg") :]
