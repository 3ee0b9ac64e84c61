"""Lifecycle scenarios as a case kind: each scenario runs in every mode on its own namespace,
through ingest, baseline queries, access simulation, consolidation cycles and post queries."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict

from harness.evaluation.kind import Engine, Report, RunInfo, Scorecard, Step
from harness.evaluation.lifecycle_results import LifecycleResult, judge
from harness.evaluation.lifecycle_summary import ModeSummary, summarise
from harness.metrics.grades import THRESHOLDS
from harness.models.scenario import LifecycleSuite
from harness.models.scoresheet import CaseScore, ScoreSheet
from harness.pipeline.lifecycle.phases import run_scenario, seed
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.reports.lifecycle_report import render_markdown, scorecard_rows


class LifecycleKind:
    """`embedder` gives the vectors duplicate detection compares, in every mode (the engine's
    embedder, when it has one, is used instead); `verbose` adds per-cycle and per-query lines."""

    name = "lifecycle"

    def __init__(
        self,
        suite: LifecycleSuite,
        embedder: TextEmbedder,
        settings: LifecycleSettings | None = None,
        verbose: bool = False,
    ):
        self.suite = suite
        self.settings = settings or LifecycleSettings()
        self.verbose = verbose
        self._embedder = embedder

    def total(self, modes: Sequence[Mode]) -> int | None:  # noqa: ARG002 - one step per scenario, all its modes
        return len(self.suite.scenarios)

    def texts(self) -> Iterable[str]:
        """What the pipeline embeds: each seeded memory's text (raw events as encoded) and each query."""
        for scenario in self.suite.scenarios:
            yield from (t.text for t in seed(scenario, self.settings).texts)
            yield from (q.query for q in scenario.queries)

    def execute(self, engine: Engine) -> Iterator[Step]:
        embedder = engine.embedder or self._embedder
        backend = engine.backend.name
        for scenario in self.suite.scenarios:
            results = []
            for mode in engine.modes:
                result = LifecycleResult(scenario.name, scenario.raw, backend, mode.value)
                try:
                    namespace = f"lc{uuid.uuid4().hex[:12]}"
                    run = run_scenario(
                        scenario, engine.backend, namespace, embedder, mode, self.suite.max_results, self.settings
                    )
                    results.append(judge(scenario, run, result, self.suite.max_results))
                except Exception as exc:  # noqa: BLE001 - a scenario's error is its result; the run goes on
                    results.append(result.fail_with(exc))
            yield Step(scenario.name, results)

    def report(self, results: Sequence[LifecycleResult], run: RunInfo) -> Report:  # type: ignore[override]
        modes = [m.value for m in run.modes]
        summaries = {m: summarise(m, [r for r in results if r.mode == m]) for m in modes}
        data = {
            "kind": self.name,
            "suite": self.suite.name,
            "backend": asdict(run.backend),
            "modes": modes,
            "unsupported": {m.value: why for m, why in run.unsupported.items()},
            "started_at": run.started_at,
            "wall_s": run.wall_s,
            "incomplete": run.incomplete,
            "max_results": self.suite.max_results,
            "settings": [{"name": n, "value": v, "doc": d} for n, v, d in self.settings.describe()],
            "warnings": list(self.suite.warnings),
            "summary": {m: asdict(s) for m, s in summaries.items()},
            "results": [r.to_json() for r in results],
        }
        return Report(
            stem=f"lifecycle-{run.backend.backend}",
            data=data,
            markdown=render_markdown(data),
            scorecard=Scorecard(
                f"lifecycle scenarios: {self.suite.name} on {run.backend.backend}", *scorecard_rows(data, self.verbose)
            ),
            scores={m: _sheet(s, [r for r in results if r.mode == m]) for m, s in summaries.items()},
            gates=_gates(summaries),
        )


def _sheet(summary: ModeSummary, results: Sequence[LifecycleResult]) -> ScoreSheet:
    """Overall: the post-consolidation scores and lifecycle shares; categories: before/after and
    raw events; cases: each scenario, passed unless its grade is FAIL, scored by its P@5 after."""
    overall = {**summary.after, **summary.lifecycle}
    categories = {"before": summary.before, "raw_events": summary.raw}
    cases = {
        r.scenario: CaseScore(
            passed=r.error is None and r.grade != "FAIL", score=r.after.get("precision") if r.error is None else None
        )
        for r in results
    }
    return ScoreSheet(overall=overall, categories={k: v for k, v in categories.items() if v}, cases=cases)


def _gates(summaries: dict[str, ModeSummary]) -> list[str]:
    gates = []
    for mode, summary in summaries.items():
        if summary.grade == "FAIL":
            failing = ", ".join(n for n, g in summary.grades.items() if g == "FAIL" and THRESHOLDS[n].gating)
            gates.append(f"lifecycle {mode}: overall grade FAIL ({failing})")
        if summary.errors:
            gates.append(f"lifecycle {mode}: {summary.errors} scenarios errored")
    return gates
