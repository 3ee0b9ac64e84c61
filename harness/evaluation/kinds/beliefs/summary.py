"""A belief run's summary per (backend, mode), as its report keeps it, and the scorecard drawn
from it (`report.py` writes it; the spec reads it back to draw a report's scorecard again)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.metrics.measures import NDCG, SET_PRECISION, SET_RECALL
from harness.reports.document import Scorecard


@dataclass(frozen=True)
class ModeSummary:
    backend: str
    mode: str
    static_passed: int
    static_total: int
    session_passed: int
    session_total: int
    turns_passed: int
    turns_total: int
    mean_precision: float | None
    mean_recall: float | None
    mean_ndcg: float | None
    mrr: float | None
    mean_drift: float | None
    p50_ms: float
    p95_ms: float
    errors: int
    pass_types: dict[str, int] = field(default_factory=dict)
    unsupported: str | None = None
    measured: int | None = None
    """Cases the precision, recall and nDCG means are taken over (an expected set, no error);
    None in reports written before it was recorded."""
    first_error: str | None = None

    @classmethod
    def not_run(cls, backend: str, mode: str, reason: str) -> ModeSummary:
        """A mode the engine cannot do: shown as unsupported, counted nowhere."""
        return cls(backend, mode, 0, 0, 0, 0, 0, 0, None, None, None, None, None, 0.0, 0.0, 0, {}, reason)

    @property
    def pass_rate(self) -> float:
        total = self.static_total + self.session_total
        return (self.static_passed + self.session_passed) / total if total else 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"pass_rate": self.pass_rate}


def scorecard(report: dict[str, Any], title: str) -> Scorecard:
    """The scorecard; its caption says when the run has errors (never a clean-looking table; the
    runner adds the INCOMPLETE line)."""
    notes = [f"ERRORS: {line}"] if (line := error_line(report)) else []
    notes.append("n: cases the precision, recall and nDCG means are taken over")
    return Scorecard(title, SCORECARD_COLUMNS, scorecard_rows(report["summary"]), notes)


def error_line(report: dict[str, Any]) -> str | None:
    """`N of M results errored (K distinct); first: ...`, or None for a run without errors."""
    errors = report.get("errors") or {}
    if not errors.get("count"):
        return None
    return (
        f"{errors['count']} of {len(report['cases'])} results errored ({errors['distinct']} distinct); "
        f"first: {errors['first']}"
    )


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


SCORECARD_COLUMNS = (
    "backend",
    "mode",
    "static",
    "session",
    "turns",
    "errors",
    "n",
    SET_PRECISION.label,
    SET_RECALL.label,
    NDCG.label,
    "drift",
    "active / structural / trivial",
    "p50 ms",
    "p95 ms",
)


def scorecard_rows(summaries: Sequence[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for s in summaries:
        if s.get("unsupported"):
            rows.append([s["backend"], s["mode"], "unsupported", *["–"] * (len(SCORECARD_COLUMNS) - 3)])
            continue
        types = s["pass_types"]
        rows.append(
            [
                s["backend"],
                s["mode"],
                f"{s['static_passed']}/{s['static_total']}",
                f"{s['session_passed']}/{s['session_total']}",
                f"{s['turns_passed']}/{s['turns_total']}",
                str(s["errors"]),
                "–" if s.get("measured") is None else str(s["measured"]),
                _num(s["mean_precision"]),
                _num(s["mean_recall"]),
                _num(s["mean_ndcg"]),
                _num(s["mean_drift"]),
                f"{types.get('active', 0)} / {types.get('structural', 0)} / {types.get('trivially_empty', 0)}",
                _num(s["p50_ms"]),
                _num(s["p95_ms"]),
            ]
        )
    return rows
