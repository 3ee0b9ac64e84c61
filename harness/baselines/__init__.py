"""Baselines and regression gates: freeze a run's scores per suite x backend x mode, check later runs.

Generic over every kind of case through `ScoreSheet`: `store` keeps the committed files,
`compare` holds the rules, `gate` freezes and checks, `runs` does either after each run of a
`harness run` (`RunGate`), `history` records each freeze and check.
"""

from harness.baselines.compare import DEFAULT_TOLERANCE, Change, Comparison, Scope, Verdict, compare
from harness.baselines.gate import (
    Checked,
    FreezeResult,
    GateResult,
    check,
    freeze,
    report_sheets,
    require,
    run_gate,
    stored_lines,
)
from harness.baselines.key import BaselineKey, slug
from harness.baselines.runs import RunGate
from harness.baselines.store import BadBaseline, Baseline, BaselineStore, MissingBaseline, default_root

__all__ = [
    "DEFAULT_TOLERANCE",
    "BadBaseline",
    "Baseline",
    "BaselineKey",
    "BaselineStore",
    "Change",
    "Checked",
    "Comparison",
    "FreezeResult",
    "GateResult",
    "MissingBaseline",
    "RunGate",
    "Scope",
    "Verdict",
    "check",
    "compare",
    "default_root",
    "freeze",
    "report_sheets",
    "require",
    "run_gate",
    "slug",
    "stored_lines",
]
