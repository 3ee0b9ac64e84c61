"""The comparison as a picture: pass rate, precision and median latency per backend and mode."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.metrics.measures import SET_PRECISION

PANELS = (
    (
        "case pass rate",
        lambda s: (s["static_passed"] + s["session_passed"]) / max(1, s["static_total"] + s["session_total"]),
    ),
    (f"mean {SET_PRECISION.label}", lambda s: s["mean_precision"] or 0.0),
    ("p50 latency (ms)", lambda s: s["p50_ms"]),
)


def write_chart(summaries: Sequence[dict[str, Any]], path: Path) -> Path:
    """Grouped bars, one group per backend and one bar per mode; unsupported modes are left out."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [s for s in summaries if not s.get("unsupported")]
    backends = list(dict.fromkeys(s["backend"] for s in rows))
    modes = list(dict.fromkeys(s["mode"] for s in rows))
    width = 0.8 / max(1, len(modes))
    figure, axes = plt.subplots(1, len(PANELS), figsize=(5 * len(PANELS), 4), constrained_layout=True)
    for axis, (title, value) in zip(axes, PANELS, strict=True):
        for position, mode in enumerate(modes):
            by_backend = {s["backend"]: value(s) for s in rows if s["mode"] == mode}
            xs = [i + position * width for i, b in enumerate(backends) if b in by_backend]
            axis.bar(xs, [by_backend[b] for b in backends if b in by_backend], width, label=mode)
        axis.set_title(title)
        axis.set_xticks([i + width * (len(modes) - 1) / 2 for i in range(len(backends))], backends)
    axes[0].legend(loc="lower left")
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
