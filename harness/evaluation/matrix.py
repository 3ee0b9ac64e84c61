"""A whole run: every kind its suites name, on each system under test and backend, as `harness run`
does; the library entry point that a command line or a test session calls.

It prints nothing: what a person sees goes through `MatrixUI`'s callbacks (progress bars, notice
lines, each finished report, verdict and baseline gate, as they happen), and `run_matrix` returns
what ran and the exit code. A run stopped part way (`Interrupted`, a `HarnessError` that ends it,
a lost backend) has written its finished part as an incomplete report, shown it through the
callbacks, and re-raises with where it stopped and which reports were written before it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.backends import registry
from harness.backends.provision import backend_session, require_containers
from harness.baselines import DEFAULT_TOLERANCE, GateResult, RunGate
from harness.embeddings import DEFAULT_MODEL
from harness.embeddings.device import Device
from harness.embeddings.embedder import Embedder
from harness.errors import HarnessError, Interrupted
from harness.evaluation import runner
from harness.evaluation.embedders import FillBar, embed_ahead, fill_cache, suite_embedder
from harness.evaluation.kind import KindOptions
from harness.evaluation.kinds import Planned, kinds_for
from harness.evaluation.model_check import load_model
from harness.files import check_output
from harness.pipeline import Mode
from harness.shards import Shard
from harness.systems import registry as systems_registry
from harness.systems.bound import REFERENCE_BOUND, bind_on_engine
from harness.systems.protocol import REFERENCE, SystemSpec

if TYPE_CHECKING:
    from harness.backends.base import Backend


@dataclass(frozen=True)
class MatrixRequest:
    """What a run asks: its suites (`own`: each kind's own options dataclass, by kind name), the
    backends, systems and modes to run them on, and the options every kind shares."""

    suites: Sequence[str]
    own: Mapping[str, Any] = field(default_factory=dict)
    backends: Sequence[str] = ("embedded",)
    systems: Sequence[str] = (REFERENCE,)
    modes: Sequence[Mode] | None = None
    """The modes named (each one some system of the run must offer), or None: every mode, each run
    where the engine and the system offer it."""
    out: Path = Path("reports")
    limit: int | None = None
    fail_under: float | None = None
    model: str = DEFAULT_MODEL
    device: Device = Device.AUTO
    url: str | None = None
    allow_extension: bool = False
    error_threshold: float = 0.0
    concurrency: int = 1
    trec: bool = False
    shard: Shard | None = None
    dry_run: bool = False
    check_baseline: bool = False
    freeze_baseline: bool = False
    baseline_dir: Path | None = None
    baseline_tolerance: float = DEFAULT_TOLERANCE


@dataclass(frozen=True)
class Gated:
    """A run's baselines frozen or checked (`result` None: a failed run, which is no baseline to freeze)."""

    result: GateResult | None
    history_file: Path


@dataclass(frozen=True)
class KindRun:
    """One kind run on one backend and system: its report files, verdict and baseline gate."""

    system: str
    backend: str
    finished: runner.Finished[Any]
    verdict: runner.Verdict
    gated: Gated | None = None

    @property
    def exit_code(self) -> int:
        failed = self.gated is not None and self.gated.result is not None and bool(self.gated.result.failed)
        return max(self.verdict.exit_code, 1 if failed else 0)


@dataclass(frozen=True)
class Described:
    """What a `--dry-run` says of one kind: its `--suite` arguments and (label, value) rows."""

    suites: tuple[str, ...]
    rows: list[tuple[str, str]]


@dataclass(frozen=True)
class MatrixOutcome:
    """Every run in the order it ran (none for a dry run, which describes each kind instead)."""

    runs: tuple[KindRun, ...]
    described: tuple[Described, ...]
    exit_code: int


class _NoBar:
    def plan(self, description: str, total: int) -> None:
        pass

    def advance(self, count: int) -> None:
        pass


def _no_progress() -> AbstractContextManager[runner.Progress]:
    return nullcontext(lambda _description, _total: lambda _: None)


def _ignore(*_: object) -> None:
    pass


@dataclass(frozen=True)
class MatrixUI:
    """How a run shows itself, every callback optional.

    `progress()`: the bars of one backend session, entered once it has started; it yields
    `start(description, total)`, which returns the `advance(item id)` of one run. `fill(what)`: the
    bar of texts embedded before a run (`reading {what}` until they are counted). `notice`: a line
    about the run (a container starting, a mode not run); `say`: a line of what it did (texts it
    embedded). `reported(backend, finished)`: a run's report is written, also one stopped part way
    just before that stop is raised; `judged(backend, verdict)` then `gated(backend, gated)`
    follow for a finished run."""

    progress: Callable[[], AbstractContextManager[runner.Progress]] = _no_progress
    fill: Callable[[str], AbstractContextManager[FillBar]] = lambda _what: nullcontext(_NoBar())
    notice: Callable[[str], None] = _ignore
    say: Callable[[str], None] = _ignore
    reported: Callable[[str, runner.Finished[Any]], None] = _ignore
    judged: Callable[[str, runner.Verdict], None] = _ignore
    gated: Callable[[str, Gated], None] = _ignore


def run_matrix(request: MatrixRequest, ui: MatrixUI | None = None) -> MatrixOutcome:
    """Check everything the run needs, then run each kind on each system and backend.

    Bad input (an unknown backend or system, a `--url` that cannot name the server, an unusable
    report folder, a baseline missing) is a `HarnessError` before anything runs."""
    ui = ui or MatrixUI()
    modes = tuple(dict.fromkeys(request.modes or Mode))
    axes = matrix_axes(request.backends, request.systems, request.url)
    backends, systems = axes.backends, axes.systems
    if not request.dry_run:
        check_output(request.out, "--out", folder=True)
    gate = RunGate.asked(
        request.check_baseline,
        request.freeze_baseline,
        request.baseline_dir,
        request.baseline_tolerance,
        sharded=request.shard is not None,
        dry_run=request.dry_run,
        out=request.out,
    )
    common = KindOptions(
        list(modes), request.limit, request.fail_under, request.model, request.shard, request.error_threshold
    )
    planned = kinds_for(request.suites, common, request.own)
    if gate is not None:
        for each in planned:
            gate.require(each.kind, backends, modes, [s.name for s in systems])
    if any(s.name == REFERENCE for s in systems):  # another system runs a kind its own way, or not at all
        for each in planned:
            each.kind.prepare()
    if request.modes is not None:
        _check_offered(modes, systems)
    # a system that embeds on its own (an HTTP service) needs no model and no vectors of the harness
    embedder = _embedder(planned, request, modes, ui) if any(s.encoder for s in systems) else None
    if request.dry_run:
        return MatrixOutcome((), tuple(_describe(each, modes, embedder) for each in planned), 0)
    if embedder is not None:
        for each in planned:
            if each.spec.embed_ahead:
                embed_ahead(each.kind, embedder)
    stage = _Stage(
        request,
        runner.RunRequest(
            modes, request.out, request.error_threshold, request.trec, request.shard, request.concurrency
        ),
    )
    runs: list[KindRun] = []
    written: list[Path] = []
    with _naming_reports(written):
        for number, (spec, name) in enumerate((s, b) for s in systems for b in backends):
            # a kind may keep state for its report: a fresh one per backend and system
            again = planned if number == 0 else kinds_for(request.suites, common, request.own)
            runs += [_run_kind(stage, name, spec, each, common, embedder, gate, written, ui) for each in again]
    return MatrixOutcome(tuple(runs), (), max((r.exit_code for r in runs), default=0))


@dataclass(frozen=True)
class Axes:
    """The backends and systems a run crosses, each checked: the matrix a command line runs kind
    by kind and a pytest session item by item."""

    backends: list[str]
    systems: list[SystemSpec]


def matrix_axes(backends: Sequence[str], systems: Sequence[str], url: str | None = None) -> Axes:
    """The named backends and systems, each known and every system runnable on every backend, and
    `url` one that can name the one backend's server; else a one-line `HarnessError`."""
    checked = [registry.check_backend(b) for b in dict.fromkeys(backends)]
    resolved = [systems_registry.resolve(n) for n in dict.fromkeys(systems)]
    for spec in resolved:
        if off := [b for b in checked if not spec.runs_on(b)]:
            runs_on = ", ".join(sorted(spec.backends or ()))
            raise HarnessError(f"system {spec.name!r} does not run on {', '.join(off)} (it runs on: {runs_on})")
    if url is not None:
        if len(checked) != 1:
            raise HarnessError("--url needs exactly one --backend")
        registry.check_url(checked[0], url)
    return Axes(checked, resolved)


def _check_offered(modes: Sequence[Mode], systems: Sequence[SystemSpec]) -> None:
    """Each mode named is offered by some system of the run, where every system says which before
    the run (the reference system offers every mode; an HTTP service declares its own): a mode no
    system offers would run nothing, a one-line `HarnessError` instead."""
    offers: dict[str, tuple[Mode, ...]] = {}
    for spec in systems:
        if spec.open is None:
            offers[spec.name] = REFERENCE_BOUND.info.modes
        elif spec.declared is not None:
            offers[spec.name] = spec.declared().modes
        else:
            return  # known once bound to an engine: its run says which modes it did not run
    if missing := [m.value for m in modes if not any(m in offered for offered in offers.values())]:
        offered_by = "; ".join(f"{name} offers {', '.join(offered)}" for name, offered in offers.items())
        raise HarnessError(f"mode {', '.join(missing)}: no system of the run offers it ({offered_by})")


def _embedder(
    planned: Sequence[Planned], request: MatrixRequest, modes: Sequence[Mode], ui: MatrixUI
) -> Embedder | None:
    """The run's embedder (None when no mode needs vectors): committed vectors first where every
    kind embeds ahead; else the texts of each kind that embeds as it goes are cached first, streamed
    many at a time so the embedder's workers share them, and the same embedder (its cache read
    once) serves the run."""
    if not any(m.needs_vectors for m in modes):
        return None
    if all(each.spec.embed_ahead for each in planned):
        return suite_embedder(request.model, request.device)
    embedder = Embedder(request.model, device=request.device)
    for each in planned:
        if not request.dry_run and not each.spec.embed_ahead:
            started = time.perf_counter()
            with ui.fill(", ".join(each.suites)) as bar:
                counted = fill_cache(each.kind.texts, embedder, bar, check=load_model)
            if counted.computed:
                ui.say(
                    f"embedded {counted.computed} of {counted.texts} texts with {request.model} on {embedder.device} "
                    f"in {time.perf_counter() - started:.1f} s (cache: {embedder.cache.folder})"
                )
    return embedder


def _describe(planned: Planned, modes: Sequence[Mode], embedder: Embedder | None) -> Described:
    """Read and check everything a run would use, index nothing, and say what the run would do."""
    if planned.spec.describe is None:
        raise HarnessError(f"--dry-run does not apply to {planned.spec.title.lower()}")
    return Described(planned.suites, planned.spec.describe(planned.kind, modes, embedder))


@contextmanager
def _naming_reports(written: list[Path]) -> Iterator[None]:
    """A run of several kinds or backends stopped part way (an interrupt, a lost backend) names, in
    its last line, the reports of the runs that finished before it, not only the incomplete one."""
    try:
        yield
    except (Interrupted, HarnessError) as exc:
        if written:
            before = f"reports written before it: {', '.join(str(path) for path in written)}"
            if isinstance(exc, Interrupted):
                exc.detail = f"{exc.detail}; {before}" if exc.detail else before
            else:
                exc.args = (f"{exc}; {before}",)
        raise


@dataclass(frozen=True)
class _Stage:
    """What every run of the matrix shares: the request, and what the runner is asked."""

    request: MatrixRequest
    run: runner.RunRequest


def _run_kind(
    stage: _Stage,
    name: str,
    system: SystemSpec,
    planned: Planned,
    common: KindOptions,
    embedder: Embedder | None,
    gate: RunGate | None,
    written: list[Path],
    ui: MatrixUI,
) -> KindRun:
    """Run one kind of case on one backend and system: progress, report, verdict and baselines.

    An interrupted run, or one an error stopped, has written what finished as an incomplete
    report and re-raises here, after the backend session removed its container. A finished run
    adds its JSON report to `written`.
    """
    kind, url = planned.kind, stage.request.url
    finished: runner.Finished[Any] | None = None
    late: Interrupted | None = None
    try:
        served: list[str | None] = []
        with (
            _session(name, url, stage.request.allow_extension, ui.notice, served.append) as backend,
            ui.progress() as start,
        ):
            bound = bind_on_engine(system, backend, name, served[-1], embedder, given=url is not None)

            def progress(unit: str, total: int | None) -> Callable[[str], None]:
                return start(f"{name}: {unit}", total)

            origin = planned.origin(common)
            finished = runner.run_and_report(kind, backend, embedder, stage.run, progress, ui.notice, origin, bound)
    except Interrupted as exc:
        if finished is None:
            exc.detail = exc.detail or f"while starting the {name} backend"
            raise
        late = exc  # during the session's clean-up: the report is written, the run counts as stopped
    ui.reported(name, finished)
    if (stopped := finished.outcome.stopped or late) is not None:
        where = f"run on {name} after {finished.outcome.progress} {kind.unit}; finished part in {finished.paths[0]}"
        if isinstance(stopped, Interrupted):
            stopped.detail = where
        else:
            stopped.args = (f"{stopped} ({where})",)
        raise stopped
    written.append(finished.paths[0])
    verdict = finished.verdict(stage.run.error_threshold)
    if common.fail_under is not None and not finished.outcome.results:  # no rate at all is none above it
        line = f"--fail-under {common.fail_under}: no case ran, so none passed"
        verdict = runner.Verdict(max(verdict.exit_code, 1), (*verdict.lines, line))
    ui.judged(name, verdict)
    if gate is None:
        return KindRun(system.name, name, finished, verdict)
    if gate.freeze_run and verdict.exit_code != 0:
        gated = Gated(None, gate.history_file)
    else:
        subset = common.limit is not None or common.shard is not None
        gated = Gated(gate.apply(finished.report, kind.baseline_suite, name, subset, system.name), gate.history_file)
    ui.gated(name, gated)
    return KindRun(system.name, name, finished, verdict, gated)


@contextmanager
def _session(
    name: str,
    url: str | None,
    allow_extension: bool,
    notice: Callable[[str], None],
    on_url: Callable[[str | None], None],
) -> Iterator[Backend]:
    """The backend session of one run, saying first when a container has to start."""
    if name in registry.servers() and url is None:
        require_containers()
        notice(f"starting the {name} container…")
    with backend_session(name, url, allow_extension=allow_extension, notice=notice, on_url=on_url) as engine:
        yield engine
