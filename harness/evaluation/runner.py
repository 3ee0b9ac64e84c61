"""The one runner: any case kind, on one engine, with progress, interruption and one exit-code rule.

It drives `CaseKind.execute`, keeping every finished step, so a run stopped by a signal or by an
error that ends it (`HarnessError`) still reports what finished. The verdict is the same for every
kind: 3 when the backend was lost mid-run, else 1 when more than the error threshold of results
errored or a quality gate failed, else 0.

It also owns the report envelope (`reports.envelope`): a kind writes only its report's body.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic

from harness.backends.base import Backend, BackendInfo
from harness.errors import HarnessError, Interrupted
from harness.evaluation.crew import Crew
from harness.evaluation.kind import CaseKind, Engine, R, Result
from harness.evaluation.view import view
from harness.models.rulesets import rules_record
from harness.models.scoresheet import ScoreSheet
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RunInfo
from harness.reports.envelope import Envelope, write_report
from harness.reports.html.child import page_process
from harness.reports.trec import write_trec
from harness.shards import Shard
from harness.systems.bound import REFERENCE_BOUND, BoundSystem
from harness.systems.tally import Counts


def runnable_modes(modes: Sequence[Mode], info: BackendInfo) -> tuple[list[Mode], dict[Mode, str]]:
    """The modes this engine can run, and why each other one is not run (never faked)."""
    if info.vector_engine is not None:
        return list(modes), {}
    reason = f"no vector engine in {info.server_version}"
    return [m for m in modes if m is Mode.BM25], {m: reason for m in modes if m is not Mode.BM25}


@dataclass
class Outcome(Generic[R]):
    """What a run produced: its results, the steps done of the total, and what stopped it early."""

    results: list[R] = field(default_factory=list)
    done: int = 0
    total: int | None = None
    wall_s: float = 0.0
    stopped: Interrupted | HarnessError | None = None

    @property
    def progress(self) -> str:
        return f"{self.done} of {'?' if self.total is None else self.total}"

    def stop_reason(self, unit: str) -> str | None:
        """Why the run is incomplete, as the report says it; None for a finished run."""
        if self.stopped is None:
            return None
        cause = (
            f"interrupted by {self.stopped.signal_name}"
            if isinstance(self.stopped, Interrupted)
            else f"stopped: {self.stopped}"
        )
        return f"{cause} after {self.progress} {unit}"


def not_applicable(kind: CaseKind[Any], system: BoundSystem) -> str | None:
    """Why `kind` cannot run on `system`: the reference system runs every kind; a kind with a port
    other systems answer (`through_systems`) names what a system lacks (`not_applicable_to`); a
    kind without one (a third party's) runs on the reference system only."""
    if system.reference:
        return None
    if getattr(kind, "through_systems", False):
        check = getattr(kind, "not_applicable_to", None)
        return check(system.info) if check is not None else None
    return f"The {kind.name} kind has no path through the memory-system protocol: only the reference pipeline runs it."


def system_modes(modes: Sequence[Mode], info: BackendInfo, system: BoundSystem) -> tuple[list[Mode], dict[Mode, str]]:
    """The modes to run, and why each other one is not run: the engine's vector index matters
    only to the reference pipeline; any other system is asked which modes it offers on this
    engine (Popoto computes its vectors in process, so it runs hybrid on Valkey too)."""
    if system.reference:
        return runnable_modes(modes, info)
    offered = system.info.modes
    reason = f"system {system.name!r} offers no such retrieval (it offers {', '.join(offered)})"
    return [m for m in modes if m in offered], {m: reason for m in modes if m not in offered}


def run(kind: CaseKind[R], engine: Engine, advance: Callable[[str], None] = lambda _: None) -> Outcome[R]:
    """Execute every item of `kind` on `engine`; `advance(item id)` after each finished step, in
    the order steps finish. The results are reported in serial order (each step's `position`),
    those a stopped run's workers finished after the stop included."""
    outcome: Outcome[R] = Outcome(total=kind.total(engine.modes))
    finished: list[tuple[tuple[int, ...], Sequence[R]]] = []
    started = time.perf_counter()
    steps = kind.execute(engine)
    try:
        for step in steps:
            finished.append((step.position or (len(finished),), step.results))
            outcome.done += 1
            advance(step.item_id)
    except (Interrupted, HarnessError) as exc:
        outcome.stopped = exc
    finally:
        try:
            _close(steps)  # a crew's workers stop and are waited for; a kind's namespaces dropped
        finally:
            late = [(step.position, step.results) for step in engine.crew.left]
            engine.crew.left.clear()
            outcome.done += len(late)
            finished += late
            finished.sort(key=lambda each: each[0])
            outcome.results = [result for _, results in finished for result in results]
            outcome.wall_s = time.perf_counter() - started
    return outcome


def _close(steps: object) -> None:
    close = getattr(steps, "close", None)
    if close is not None:
        close()


def throughput(outcome: Outcome[Any], counts: Counts | None) -> dict[str, Any]:
    """What the run did per second of its wall time: items (progress steps), and the operations
    (add, search, advance, consolidate, access: one each, however many HTTP requests an add takes)
    and records it sent through the system protocol; None (not counted) for the reference
    pipeline, which the kinds drive directly, never a rate of 0 that reads as a stalled system."""
    seconds = outcome.wall_s

    def rate(count: int | None) -> float | None:
        return round(count / seconds, 3) if seconds > 0 and count is not None else None

    operations, records = (None, None) if counts is None else (counts.operations, counts.records)
    return {
        "items": outcome.done,
        "items_per_s": rate(outcome.done),
        "operations": operations,
        "operations_per_s": rate(operations),
        "records_added": records,
        "records_per_s": rate(records),
    }


@dataclass(frozen=True)
class Verdict:
    exit_code: int
    lines: tuple[str, ...]
    """What the user is told on stderr: errors, lost backend, failed gates."""


def verdict(results: Sequence[Result], report: Report, error_threshold: float) -> Verdict:
    """The exit code of a finished run, and the lines that explain it."""
    errored = [r for r in results if r.error is not None]
    lines: list[str] = []
    if errored:
        lost = any(r.backend_lost for r in errored)
        distinct = len({r.error for r in errored})
        lines.append(
            f"{len(errored)} of {len(results)} results errored ({distinct} distinct); first: {errored[0].error}"
            + ("; the backend was lost mid-run" if lost else "")
        )
        if lost:
            return Verdict(3, tuple(lines))
    over = bool(results) and len(errored) / len(results) > error_threshold
    if over:
        lines.append(f"{len(errored) / len(results):.1%} of results errored, over --error-threshold {error_threshold}")
    lines += report.gates
    return Verdict(1 if over or report.gates else 0, tuple(lines))


@dataclass(frozen=True)
class RunRequest:
    """What every run asks whatever its kind of case: checked once by the CLI, passed down whole."""

    modes: tuple[Mode, ...]
    out: Path
    error_threshold: float = 0.0
    trec: bool = False
    shard: Shard | None = None
    concurrency: int = 1
    """`--concurrency`: at most this many of a kind's tasks in flight (the system may take fewer)."""


def concurrency(asked: int, system: BoundSystem) -> tuple[int, str | None]:
    """How many tasks run at once on `system`, and why fewer than `asked` where so: a system takes
    at most its `max_concurrency` (the reference pipeline: no limit of its own; an HTTP service: what
    it declares; Popoto and mem0: see theirs)."""
    most = system.info.max_concurrency
    if most is None or asked <= most:
        return asked, None
    why = system.info.serial_reason if most == 1 and system.info.serial_reason else f"it takes at most {most} at once"
    return most, f"system {system.name!r} runs at concurrency {most}, not {asked}: {why}"


@dataclass(frozen=True)
class Finished(Generic[R]):
    """A run on one backend, reported: what the CLI shows, and what stopped it early if anything did."""

    report: Report
    paths: list[Path]
    outcome: Outcome[R]

    def verdict(self, error_threshold: float) -> Verdict:
        return verdict(self.outcome.results, self.report, error_threshold)


Progress = Callable[[str, int | None], Callable[[str], None]]
"""Called once with (unit, total) when the run starts; returns the per-step `advance(item id)`."""


def run_and_report(
    kind: CaseKind[R],
    backend: Backend,
    embedder: TextEmbedder | None,
    request: RunRequest,
    progress: Progress = lambda _unit, _total: lambda _: None,
    notice: Callable[[str], None] = lambda _: None,
    origin: Mapping[str, Any] | None = None,
    system: BoundSystem = REFERENCE_BOUND,
) -> Finished[R]:
    """Run `kind` on `backend` in the modes it can run (`notice` says which it cannot), then write
    the report in its envelope (and TREC files with `request.trec`). An interrupted or stopped run
    writes what finished as an incomplete report, and a shard as a shard report: neither ever
    becomes `-latest`; the caller re-raises. `origin`: what built the kind (`Planned.origin`), so
    `harness merge` can build it again. `system`: the system under test (the reference system
    unless another is bound); a kind it cannot run is reported not applicable, with no results."""
    started_at = datetime.now(UTC)
    info = backend.info()  # asked before the run: the server may be gone after it
    modes, unsupported = system_modes(request.modes, info, system)
    for mode, reason in unsupported.items():
        notice(f"{info.backend}: {mode.value} mode not run: {reason}")
    skipped = not_applicable(kind, system)
    if skipped is not None:
        notice(f"{info.backend}: not applicable: {skipped}")
    workers, fewer = concurrency(request.concurrency, system)
    if fewer is not None and skipped is None:
        notice(f"{info.backend}: {fewer}")
    vectors = embedder if any(m.needs_vectors for m in modes) else None
    engine = Engine(backend, vectors, tuple(modes), system, Crew(workers))
    with page_process() as page:  # the page's process imports what draws it while the run goes on
        counted = system.tally.snapshot()
        outcome = run(kind, engine, progress(kind.unit, kind.total(modes))) if skipped is None else Outcome[R](total=0)
        done = system.tally.snapshot() - counted
        run_info = RunInfo(
            info,
            tuple(modes),
            unsupported,
            {},
            started_at,
            outcome.wall_s,
            outcome.stop_reason(kind.unit),
            request.shard,
            system.info,
            skipped,
            workers,
            throughput(outcome, None if system.reference else done),
        )
        report = kind.report(outcome.results, run_info)
        if skipped is not None:  # nothing ran: a baseline of each mode holds no measure, never a 0 it did not measure
            report = replace(report, scores={mode.value: ScoreSheet() for mode in modes})
        from harness.evaluation import kinds  # the registry imports every kind: not for the runner's importers

        spec = next((s for s in kinds.SPECS if s.name == kind.name), None)  # read on each call: tests add kinds
        shown = None if spec is None else view(spec, kind, report)
        rules = None if spec is None else rules_record(spec.rules(kind, system.reference))
        envelope = Envelope.of(kind, run_info, report, origin or {}, shown, rules)
        paths, stem, report = write_report(request.out, envelope, report, page=page)
    if request.trec and outcome.stopped is None:
        paths += write_trec(request.out, stem, report.trec)
    for name, draw in (report.charts if skipped is None else {}).items():  # nothing ran: nothing to draw
        try:
            paths.append(draw(paths[0].with_name(f"{paths[0].stem}-{name}.png")))
        except ImportError:
            notice(f"no {name} chart: install the chart extra (matplotlib)")
    return Finished(report, paths, outcome)
