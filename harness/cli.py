"""`harness`: run suites, compare backends, validate cases, embed, benchmark.

Every failure is one stderr line and one exit code (README, "Exit codes"):
0 done; 1 a quality gate failed (`--fail-under`, or more than `--error-threshold` of the results
errored, default 0); 2 bad input, found before anything runs (usage, options that do not apply,
`--url`, `--out`, files, names, an invalid model name); 3 a backend could not be reached or
started, or was lost mid-run, or a valid model id cannot be loaded here; 130 SIGINT; 143 SIGTERM
(both remove the run's containers and write its finished part as an incomplete report).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import logging
import os
import signal
import sys
import threading
import time
import typing
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from harness.backends import registry
from harness.backends.ledger import NAMESPACE, Entry, Ledger, server_identity
from harness.backends.provision import backend_session, require_containers, start_server
from harness.backends.registry import check_backend, connect
from harness.baselines import (
    DEFAULT_TOLERANCE,
    BaselineKey,
    BaselineStore,
    GateResult,
    history,
    report_sheets,
    require,
    run_gate,
    stored_lines,
)
from harness.embeddings import DEFAULT_MODEL, TextEncoder
from harness.embeddings import registry as encoders
from harness.embeddings.device import Device
from harness.embeddings.embedder import Embedder
from harness.errors import BackendUnavailable, HarnessError, HarnessWarning, Interrupted
from harness.evaluation import kinds as kind_registry
from harness.evaluation import runner
from harness.evaluation.embedders import EmbedCount, embed_ahead, embed_streamed, suite_embedder
from harness.evaluation.kind import CaseKind, KindOptions, KindSpec, Report, Scorecard
from harness.evaluation.kinds import Planned, kinds_for, prefix_of, selected, spec_of
from harness.evaluation.model_check import load_model
from harness.messages import is_conninfo, redacted
from harness.pipeline import Mode
from harness.pipes import stdout_until_closed
from harness.reports import compare as compare_reports
from harness.reports import run_report
from harness.reports.envelope import write_report
from harness.reports.writer import check_out_dir, report_json, write_run_files
from harness.resources import data_root
from harness.shards import Shard, parse_shard
from harness.suites import BUILTIN, load_suite
from harness.suites.resolve import cases_dir
from harness.systems import http as http_system
from harness.systems import registry as systems_registry
from harness.systems.bound import BoundSystem, bind
from harness.systems.protocol import REFERENCE, Opening, SystemSpec
from harness.systems.reference import SPEC as REFERENCE_SPEC

if TYPE_CHECKING:
    from harness.backends.base import Backend

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False, rich_markup_mode="rich")
cases_app = typer.Typer(no_args_is_help=True, help="Inspect and validate case suites.")
app.add_typer(cases_app, name="cases")
images_app = typer.Typer(no_args_is_help=True, help="Local container images of the server backends.")
app.add_typer(images_app, name="images")
baseline_app = typer.Typer(
    no_args_is_help=True, help="Baselines: freeze a run's scores per suite, backend and mode; check later runs."
)
app.add_typer(baseline_app, name="baseline")
report_app = typer.Typer(no_args_is_help=True, help="A run report's HTML page.")
app.add_typer(report_app, name="report")

out_console = Console(file=stdout_until_closed(), width=None if sys.stdout.isatty() else 160)  # `| head` is fine
err_console = Console(stderr=True)

ENCODERS = encoders.names()
"""The offline `--model` choices, from the encoder list (harness/embeddings/registry.py)."""


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err_console
    )


def _say(line: str) -> None:
    """One plain line of output, printed as it is (no markup, no highlighting, no wrapping)."""
    out_console.print(line, highlight=False, markup=False, soft_wrap=True)


def _notice(line: str) -> None:
    err_console.print(line, highlight=False, markup=False, soft_wrap=True)


def _error(message: str) -> None:
    err_console.print(f"harness: {message}", highlight=False, markup=False, soft_wrap=True)


def _show_warning(message: Warning | str, category: type[Warning], *args: object, **kwargs: object) -> None:
    """The harness's own warnings as one `harness: warning: ...` line; others as Python shows them."""
    if issubclass(category, HarnessWarning):
        _error(f"warning: {message}")
    else:
        _python_show_warning(message, category, *args, **kwargs)  # type: ignore[arg-type]


_python_show_warning = warnings.showwarning


def print_scorecard(card: Scorecard) -> None:
    """Draw a kind's scorecard as it is: the report decides every cell and caption line."""
    table = Table(title=card.title, caption="\n".join(card.caption))
    for column in card.columns:
        table.add_column(column, justify="left" if column in ("backend", "mode", "level") else "right")
    for row in card.rows:
        table.add_row(*row)
    out_console.print(table)


def _option(ctx: typer.Context, name: str) -> str:
    param = next(p for p in ctx.command.params if p.name == name)
    return "/".join(param.opts)


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the user passed the option (even with its default value), as click records it."""
    source = ctx.get_parameter_source(name)  # typer's own copy of click's ParameterSource: compare by name
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


HONOURED = ("fail_under", "trec", "dry_run")
"""Common options of `harness run` that only some kinds act on (each spec's `honours` says which)."""


def _spec_options(kind: KindSpec[Any, Any], texts_only: bool = False) -> list[tuple[str, Any, Any, dict[str, Any]]]:
    """(name, type, default, metadata) of each of a kind's own options (`texts_only`: those that
    change which texts its vector modes embed)."""
    if kind.options is None:
        return []
    hints = typing.get_type_hints(kind.options)
    return [
        (f.name, hints[f.name], f.default, dict(f.metadata))
        for f in dataclasses.fields(kind.options)
        if f.metadata.get("texts") or not texts_only
    ]


def _own_options(params: dict[str, Any], texts_only: bool = False) -> dict[str, Any]:
    """Each kind's own options dataclass, from the command's parameters (`texts_only`: `harness
    embed`'s, the rest of each dataclass at its defaults)."""
    return {
        kind.name: kind.options(**{name: params[name] for name, *_ in _spec_options(kind, texts_only)})
        for kind in kind_registry.SPECS
        if kind.options is not None
    }


def _run_specs(suites: Sequence[str], own: dict[str, Any]) -> list[KindSpec[Any, Any]]:
    """The kinds a run runs: the one an own option selects (`--dataset`), else those `--suite` names."""
    if (chosen := selected(own)) is not None:
        return [chosen[0]]
    return list(dict.fromkeys(spec_of(s) for s in suites))


def _check_applicable(ctx: typer.Context, kinds: Sequence[KindSpec[Any, Any]], own: dict[str, Any]) -> None:
    """An option the run would ignore is a mistake: say so rather than run something else than asked."""
    names = ", ".join(k.title.lower() for k in kinds)
    if selected(own) is not None and _given(ctx, "suite"):
        raise HarnessError(f"{_option(ctx, 'suite')} does not apply to {names}")
    for kind in kind_registry.SPECS:
        if kind in kinds:
            continue
        if given := [_option(ctx, name) for name, *_ in _spec_options(kind) if _given(ctx, name)]:
            ways = [f"--{kind.selector} NAME"] if kind.selector else []
            ways += [f"--suite {', '.join(kind.prefixes)}:..."] if kind.prefixes else []
            where = " or ".join(ways) or kind.suite_help
            raise HarnessError(
                f"{', '.join(given)} does not apply to {names} (an option of {kind.title.lower()}: {where})"
            )
    for name in HONOURED:
        if _given(ctx, name) and (deaf := [k.title.lower() for k in kinds if name not in k.honours]):
            raise HarnessError(f"{_option(ctx, name)} does not apply to {', '.join(deaf)}")


def _check_url(backend: str, url: str) -> None:
    """A `--url` that cannot name this backend's server fails here, in one line, before anything starts."""
    found = registry.descriptor(backend)
    if found.server is None:
        raise HarnessError(f"--url names a running server; the {backend} backend runs in process (drop --url)")
    schemes = tuple(found.url_schemes)
    if backend == "postgres" and is_conninfo(url):  # a libpq key=value connection string
        server_identity(url)  # parsed by psycopg; a bad one is a one-line error, its secrets masked
        return
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError as exc:
        raise HarnessError(f"--url {redacted(url)!r}: {exc}") from None
    if parts.scheme not in schemes:
        raise HarnessError(f"--url {redacted(url)!r} is not a {backend} URL (expected {schemes[0]}://HOST:PORT...)")


def run(
    ctx: typer.Context,
    backend: Annotated[
        list[str],
        typer.Option("--backend", "-b", rich_help_panel="Backend", help=f"{', '.join(registry.names())} (repeatable)."),
    ] = ["embedded"],
    mode: Annotated[list[Mode], typer.Option("--mode", "-m", help="Retrieval modes (repeatable).")] = [
        Mode.BM25,
        Mode.VECTOR,
        Mode.HYBRID,
    ],
    suite: Annotated[
        list[str],
        typer.Option(
            "--suite",
            "-s",
            rich_help_panel="Suites",
            help="Every kind's suite formats (see `_run_signature`).",
        ),
    ] = [BUILTIN],
    limit: Annotated[int | None, typer.Option(min=1, help="Run only the first N cases of each kind.")] = None,
    out: Annotated[Path, typer.Option(help="Report folder.")] = Path("reports"),
    fail_under: Annotated[
        float | None,
        typer.Option(
            rich_help_panel="Suites", min=0.0, max=1.0, help="Exit 1 if a mode's case pass rate is below this."
        ),
    ] = None,
    model: Annotated[
        str, typer.Option(rich_help_panel="Embeddings", help="Embedding model for vector and hybrid modes.")
    ] = DEFAULT_MODEL,
    url: Annotated[
        str | None,
        typer.Option(
            rich_help_panel="Backend",
            help="Use this running server (e.g. from `harness up`) instead of a new container.",
        ),
    ] = None,
    error_threshold: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Exit 1 when more than this fraction of cases or questions errored (default 0)."
        ),
    ] = 0.0,
    allow_extension: Annotated[
        bool,
        typer.Option(
            "--allow-extension",  # a flag alone (no --no-... form): every option name fits 80 columns
            show_default=False,
            rich_help_panel="Backend",
            help="With --url on postgres: create pgvector's extension if missing (dropped at the end).",
        ),
    ] = False,
    trec: Annotated[bool, typer.Option(help="Also write each mode's run and qrels as TREC files.")] = False,
    shard: Annotated[
        str | None,
        typer.Option(help="Run only shard I/N of the questions or cases (by id hash); `harness merge` joins them."),
    ] = None,
    device: Annotated[
        Device,
        typer.Option(
            rich_help_panel="Embeddings",
            help="Where to embed (auto: a dataset on cuda when torch sees a GPU; "
            "suites on the cpu, like their committed vectors).",
        ),
    ] = Device.AUTO,
    check_baseline: Annotated[
        bool,
        typer.Option(
            "--check-baseline",
            show_default=False,
            rich_help_panel="Baselines",
            help="Check each mode's scores against its baseline: exit 1 on a regression, 2 if none is frozen.",
        ),
    ] = False,
    freeze_baseline: Annotated[
        bool,
        typer.Option(
            "--freeze-baseline",
            show_default=False,
            rich_help_panel="Baselines",
            help="Freeze each mode's scores as its baseline.",
        ),
    ] = False,
    baseline_dir: Annotated[
        Path | None, typer.Option(rich_help_panel="Baselines", help="Baselines folder (default: cases/baselines).")
    ] = None,
    baseline_tolerance: Annotated[
        float,
        typer.Option(rich_help_panel="Baselines", min=0.0, help="How far a score may fall below its baseline."),
    ] = DEFAULT_TOLERANCE,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", show_default=False, help="Show what the run would do, and run nothing."),
    ] = False,
    system: Annotated[
        list[str],
        typer.Option(
            "--system",
            rich_help_panel="Backend",
            help="Memory system under test (repeatable): reference, an installed one, or http:URL.",
        ),
    ] = [REFERENCE],
    **own_params: Any,
) -> int:
    """Run suites (or a public dataset) on a backend in each mode; print the scorecard, write JSON + Markdown reports.

    Errored cases are counted and shown; the exit code is 3 if the backend was lost mid-run, else 1
    if more than --error-threshold of the results errored or a mode is under --fail-under.
    """
    own = _own_options(own_params)
    kinds = _run_specs(suite, own)
    _check_applicable(ctx, kinds, own)
    part = parse_shard(shard) if shard is not None else None
    modes = list(dict.fromkeys(mode))
    backends = [check_backend(b) for b in dict.fromkeys(backend)]
    systems = _systems(system, backends)
    if url is not None:
        if len(backends) != 1:
            raise HarnessError("--url needs exactly one --backend")
        _check_url(backends[0], url)
    if not dry_run:
        check_out_dir(out)
    gate = _baseline_gate(check_baseline, freeze_baseline, baseline_dir, baseline_tolerance, shard, dry_run, out)
    request = runner.RunRequest(tuple(modes), out, error_threshold, trec, part)
    where = (url, allow_extension, gate)
    common = KindOptions(modes, limit, fail_under, model, part, error_threshold)
    planned = kinds_for(suite, common, own)
    if gate is not None:
        for each in planned:
            gate.require(each.kind, backends, modes, [s.name for s in systems])
    if any(s.name == REFERENCE for s in systems):  # another system runs a kind its own way, or not at all
        for each in planned:
            each.kind.prepare()
    # a system that embeds on its own (an HTTP service) needs no model and no vectors of the harness
    encoder = any(s.encoder for s in systems)
    embedder = _run_embedder(planned, model, device, modes, dry_run) if encoder else None
    if dry_run:
        for each in planned:
            _dry_run(each, modes, embedder)
        return 0
    if embedder is not None:
        for each in planned:
            if each.spec.embed_ahead:
                embed_ahead(each.kind, embedder)
    written: list[Path] = []
    with _naming_reports(written):
        codes = []
        for number, (spec, name) in enumerate((s, b) for s in systems for b in backends):
            # a kind may keep state for its report: a fresh one per backend and system
            again = planned if number == 0 else kinds_for(suite, common, own)
            codes += [_run_kind(name, each, common, embedder, request, *where, written, spec) for each in again]
    return max(codes)


def _systems(names: Sequence[str], backends: Sequence[str]) -> list[SystemSpec]:
    """The `--system` names resolved, each on every backend of the run (else a one-line error)."""
    systems = [systems_registry.resolve(n) for n in dict.fromkeys(names)]
    for spec in systems:
        if off := [b for b in backends if not spec.runs_on(b)]:
            runs_on = ", ".join(sorted(spec.backends or ()))
            raise HarnessError(f"system {spec.name!r} does not run on {', '.join(off)} (it runs on: {runs_on})")
    return systems


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


def _run_signature() -> inspect.Signature:
    """`run`'s parameters: its own, then every kind's own options (declared once, in its spec), each
    in its kind's help panel; an enum type lists its choices in `--help`."""
    base = _RUN_PARAMETERS
    formats = "; ".join(k.suite_help for k in kind_registry.SPECS)
    suite = typer.Option("--suite", "-s", rich_help_panel="Suites", help=f"{formats} (repeatable).")
    ranked = ", ".join(k.title.lower() for k in kind_registry.SPECS if "trec" in k.honours)
    unranked = ", ".join(k.title.lower() for k in kind_registry.SPECS if "trec" not in k.honours)
    trec = typer.Option(
        help=f"Also write each mode's run and qrels as TREC files ({ranked}: they rank documents against "
        f"relevance judgements; {unranked or 'none'} judge what an answer or context holds, not a ranking: refused)."
    )
    replaced = {"suite": Annotated[list[str], suite], "trec": Annotated[bool, trec]}
    return _with_kind_options(base, replaced, texts_only=False)


def _with_kind_options(base: inspect.Signature, replaced: dict[str, Any], texts_only: bool) -> inspect.Signature:
    """A command's own parameters (some with `replaced` annotations), then each kind's own options
    (only those that change the embedded texts, with `texts_only`), in the kind's help panel."""
    params = [
        p.replace(annotation=replaced[p.name]) if p.name in replaced else p
        for p in base.parameters.values()
        if p.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    for kind in kind_registry.SPECS:
        for name, hint, default, meta in _spec_options(kind, texts_only):
            flags = [meta["flag"]] if meta.get("flag") else []  # else typer's own (`--verbose/--no-verbose`)
            info = typer.Option(*flags, help=meta["help"], rich_help_panel=kind.title, **meta.get("limits", {}))
            annotation = Annotated[hint, info]  # type: ignore[valid-type]
            params.append(
                inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
            )
    return base.replace(parameters=params)


_RUN_PARAMETERS = inspect.signature(run, eval_str=True)
"""`run`'s own parameters (its `__signature__` adds the kinds' options: see `_run_signature`)."""
run.__signature__ = _run_signature()  # type: ignore[attr-defined]
app.command()(run)


def _run_embedder(
    planned: Sequence[Planned], model: str, device: Device, modes: Sequence[Mode], dry_run: bool
) -> Embedder | None:
    """The run's embedder (None when no mode needs vectors): committed vectors first where every
    kind embeds ahead; else the texts of each kind that embeds as it goes are cached first, streamed
    many at a time so the embedder's workers share them, and the same embedder (its cache read
    once) serves the run."""
    if not any(m.needs_vectors for m in modes):
        return None
    if all(each.spec.embed_ahead for each in planned):
        return suite_embedder(model, device)
    embedder = Embedder(model, device=device)
    for each in planned:
        if not dry_run and not each.spec.embed_ahead:
            started = time.perf_counter()
            counted = _fill_cache(each.kind.texts, embedder, ", ".join(each.suites), check=load_model)
            if counted.computed:
                out_console.print(
                    f"embedded {counted.computed} of {counted.texts} texts with {model} on {embedder.device} "
                    f"in {time.perf_counter() - started:.1f} s (cache: {embedder.cache.folder})",
                    highlight=False,
                    soft_wrap=True,
                )
    return embedder


def _dry_run(planned: Planned, modes: Sequence[Mode], embedder: Embedder | None) -> None:
    """Read and check everything a run would use, index nothing, and say what the run would do."""
    assert planned.spec.describe is not None  # --dry-run is refused for a kind without one
    table = Table(title=f"dry run: {', '.join(planned.suites)}", show_header=False)
    for label, value in planned.spec.describe(planned.kind, modes, embedder):
        table.add_row(label, value)
    out_console.print(table)


def _run_kind(
    name: str,
    planned: Planned,
    common: KindOptions,
    embedder: Embedder | None,
    request: runner.RunRequest,
    url: str | None,
    allow_extension: bool,
    gate: BaselineGate | None,
    written: list[Path],
    system: SystemSpec = REFERENCE_SPEC,
) -> int:
    """Run one kind of case on one backend and system: progress, scorecard, reports, baselines, and the run's exit code.

    An interrupted run, or one an error stopped, has written what finished as an incomplete
    report and re-raises here, after the backend session removed its container. A finished run
    adds its JSON report to `written`.
    """
    kind = planned.kind
    finished: runner.Finished[Any] | None = None
    late: Interrupted | None = None
    try:
        served: list[str | None] = []
        with _session(name, url, allow_extension, served.append) as backend, _progress() as progress:
            bound = _bound(system, backend, name, served[-1], embedder, given=url is not None)

            def start(unit: str, total: int | None) -> Callable[[str], None]:
                task = progress.add_task(f"{name}: {unit}", total=total)
                return lambda _: progress.advance(task)

            origin = planned.origin(common)
            finished = runner.run_and_report(kind, backend, embedder, request, start, _notice, origin, bound)
    except Interrupted as exc:
        if finished is None:
            exc.detail = exc.detail or f"while starting the {name} backend"
            raise
        late = exc  # during the session's clean-up: the report is written, the run counts as stopped
    print_scorecard(finished.report.scorecard)
    out_console.print(f"reports: {', '.join(str(p) for p in finished.paths)}", soft_wrap=True)
    if page := next((p for p in finished.paths if p.suffix == ".html"), None):
        out_console.print(f"page: {page.resolve().as_uri()}", soft_wrap=True, highlight=False)
    if (stopped := finished.outcome.stopped or late) is not None:
        where = f"run on {name} after {finished.outcome.progress} {kind.unit}; finished part in {finished.paths[0]}"
        if isinstance(stopped, Interrupted):
            stopped.detail = where
        else:
            stopped.args = (f"{stopped} ({where})",)
        raise stopped
    written.append(finished.paths[0])
    verdict = finished.verdict(request.error_threshold)
    for line in verdict.lines:
        _error(f"{name}: {line}")
    if gate is None:
        return verdict.exit_code
    if gate.freeze_run and verdict.exit_code != 0:
        _error(f"{name}: baselines not frozen: a failed run is no baseline")
        return verdict.exit_code
    subset = common.limit is not None or common.shard is not None
    checked = gate.apply(finished.report, kind.baseline_suite, name, subset, system.name)
    for line in [*checked.lines, f"baseline history: {gate.history_file}"]:
        _say(line)
    return max(verdict.exit_code, 1 if checked.failed else 0)


@dataclass(frozen=True)
class BaselineGate:
    """What `--check-baseline` / `--freeze-baseline` ask of every finished run."""

    store: BaselineStore
    freeze_run: bool
    tolerance: float
    history_file: Path
    """Beside the reports: a check never writes into the baselines folder (a checkout's `cases/`)."""

    def require(
        self, kind: CaseKind[Any], backends: Sequence[str], modes: Sequence[Mode], systems: Sequence[str] = (REFERENCE,)
    ) -> None:
        """Before the run: a check needs a baseline of each backend, mode and system it asks for."""
        if kind.baseline_suite is None:
            raise HarnessError(f"{kind.name} runs report no scores a baseline can hold")
        if not self.freeze_run:
            suite = kind.baseline_suite
            require(self.store, [BaselineKey(suite, b, m.value, s) for s in systems for b in backends for m in modes])

    def apply(
        self, report: Report, suite: str | None, backend: str, subset: bool, system: str = REFERENCE
    ) -> GateResult:
        """`subset`: the run may have run part of the baseline's items (`--limit`, `--shard`): a
        check compares those items with the same items of the baseline."""
        sheets = report_sheets(report, suite, backend, system)
        return run_gate(
            self.store,
            sheets,
            report.settings,
            freeze_run=self.freeze_run,
            history_file=self.history_file,
            tolerance=self.tolerance,
            subset=subset,
        )


def _baseline_gate(
    check: bool, freeze: bool, folder: Path | None, tolerance: float, shard: str | None, dry_run: bool, out: Path
) -> BaselineGate | None:
    """A check may run on a shard (its items are checked against the same items of the baseline);
    a freeze needs the whole run."""
    if not (check or freeze):
        return None
    if check and freeze:
        raise HarnessError("--check-baseline and --freeze-baseline: pick one")
    if freeze and shard is not None:
        raise HarnessError("--freeze-baseline needs a whole run (not --shard): a baseline holds every item")
    if dry_run:
        raise HarnessError(f"--{'check' if check else 'freeze'}-baseline needs a run (not --dry-run)")
    store = BaselineStore(folder)
    if check and not store.root.is_dir():
        raise HarnessError(f"--check-baseline: no baselines folder {store.root} (freeze first, or --baseline-dir)")
    return BaselineGate(store, freeze, tolerance, out / history.FILE_NAME)


@contextmanager
def _session(
    name: str, url: str | None, allow_extension: bool, on_url: Callable[[str | None], None] = lambda _: None
) -> Iterator[Backend]:
    """The backend session of a suite or dataset run, saying first when a container has to start."""
    if name in registry.servers() and url is None:
        require_containers()
        err_console.print(f"starting the {name} container…", highlight=False)
    with backend_session(name, url, allow_extension=allow_extension, notice=_notice, on_url=on_url) as engine:
        yield engine


def _bound(
    system: SystemSpec, backend: Backend, name: str, url: str | None, embedder: Embedder | None, given: bool
) -> BoundSystem | None:
    """The system under test on this engine (None: the reference system, on the kinds' own path).
    An HTTP service's namespaces are recorded in the ledger of its URL, and on a server the user
    gave (`given`) those of a system that writes to it on its own, for `harness down --url`."""
    if system.name == REFERENCE:
        return None
    if system.name.startswith(http_system.PREFIX):
        ledger: tuple[Ledger, str] | None = (Ledger(system.name.removeprefix(http_system.PREFIX)), "http")
    else:
        ledger = (Ledger(url), system.name) if given and url is not None and system.drop is not None else None

    def opening(namespace: str) -> Opening:
        if ledger is None:
            return Opening(backend, name, url, namespace, embedder)
        book, owner = ledger
        return Opening(
            backend,
            name,
            url,
            namespace,
            embedder,
            lambda ns, /, **details: book.record(owner, NAMESPACE, ns, **details),
            lambda ns: book.forget(NAMESPACE, ns),
        )

    return bind(system, opening)


@app.command()
def compare(
    reports: Annotated[
        list[Path] | None,
        typer.Argument(help="Run reports (default: the newest complete one of each backend and mode)."),
    ] = None,
    out: Annotated[Path, typer.Option(help="Report folder to read and write.")] = Path("reports"),
) -> int:
    """Side-by-side table of run reports of any kind, and whether runs differ significantly on shared items."""
    loaded = compare_reports.load_reports(reports or compare_reports.default_reports(out))
    found = compare_reports.differences(loaded)
    print_scorecard(compare_reports.table(loaded))
    summaries = compare_reports.belief_summaries(loaded)
    if summaries:
        print_scorecard(run_report.scorecard({"summary": summaries}, "belief suites"))
    for difference in found:
        _say(difference.line())
    from harness.reports.html.compare_page import render_compare

    markdown = compare_reports.comparison_markdown(loaded, found)
    paths = write_run_files(out, "compare", {"md": markdown, "html": render_compare(loaded, found)})
    if summaries:
        try:
            from harness.reports.chart import write_chart

            paths.append(write_chart(summaries, paths[0].with_suffix(".png")))
        except ImportError:
            err_console.print("no chart: install the chart extra (matplotlib)", highlight=False)
    out_console.print(f"written: {', '.join(str(p) for p in paths)}")
    return 0


@app.command()
def leaderboard(
    reports: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Run reports (default: the newest complete one of each kind, suite, backend, system and mode)."
        ),
    ] = None,
    out: Annotated[Path, typer.Option(help="Report folder to read and write.")] = Path("reports"),
) -> int:
    """Systems x suites and datasets per backend, with each system's published figures beside ours."""
    from harness.reports import leaderboard as boards
    from harness.reports.html.leaderboard_page import render_leaderboard

    board = boards.board(
        compare_reports.load_reports(reports or compare_reports.default_reports(out)), boards.published_figures()
    )
    contents: dict[str, str | bytes] = {
        "md": boards.leaderboard_markdown(board),
        "json": report_json(boards.leaderboard_json(board)),
    }
    svg = None
    try:
        from harness.reports.leaderboard_chart import leaderboard_chart

        contents["png"], svg = leaderboard_chart(board)
    except ImportError:
        err_console.print("no chart: install the chart extra (matplotlib)", highlight=False)
    contents["html"] = render_leaderboard(board, svg)
    out_console.print(contents["md"], soft_wrap=True, highlight=False, markup=False)
    paths = write_run_files(out, "leaderboard", contents)
    out_console.print(f"written: {', '.join(str(p) for p in paths)}", soft_wrap=True)
    return 0


@app.command()
def merge(
    reports: Annotated[list[Path], typer.Argument(help="The JSON reports of every shard of one run.")],
    out: Annotated[Path, typer.Option(help="Report folder.")] = Path("reports"),
    error_threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="As `run`'s: the fraction of errored results the run tolerates.")
    ] = 0.0,
) -> int:
    """Combine `run ... --shard I/N` reports (of any kind) into the report of the whole run.

    Exits as the unsharded run would have (1: errors or a gate; 3: a shard lost its backend, and
    the merge is not `-latest`); a shard that did not finish makes an incomplete merge (exit 3)."""
    from harness.reports.merge import merge_reports

    merged = merge_reports(reports, kind_registry.SPECS)
    check_out_dir(out)
    verdict = runner.verdict(merged.results, merged.report, error_threshold)
    written, _, shown = write_report(out, merged.envelope, merged.report, latest=verdict.exit_code != 3)
    print_scorecard(shown.scorecard)
    for path in written:
        out_console.print(f"report: {path}")
    if merged.incomplete is not None:
        _error(f"merge: incomplete: {merged.incomplete}; rerun that shard and merge again")
        return 3
    for line in verdict.lines:
        _error(f"merge: {line}")
    return verdict.exit_code


@report_app.command("render")
def report_render(
    report: Annotated[Path, typer.Argument(help="A run report's JSON file (any kind, old ones too).")],
    out: Annotated[Path | None, typer.Option(help="Where to write the page (default: beside it, .html).")] = None,
) -> int:
    """Write a run report's HTML page again from its JSON (replacing only a page this harness wrote)."""
    from harness.reports.html.files import render_file

    page, replaced = render_file(report, out)
    _say(f"page: {page}" + (" (replaced)" if replaced else ""))
    return 0


@report_app.command("diff")
def report_diff(
    base: Annotated[Path, typer.Argument(help="The report to compare against (a baseline run, another backend).")],
    new: Annotated[Path, typer.Argument(help="The report of the same kind to compare.")],
    out: Annotated[Path | None, typer.Option(help="Where to write the page (default: <NEW>-vs-<BASE>.html).")] = None,
) -> int:
    """A page of what changed from BASE to NEW, item by item: regressed, fixed, changed, added, removed."""
    from harness.reports.html.files import diff_file

    page, replaced = diff_file(base, new, out)
    _say(f"page: {page}" + (" (replaced)" if replaced else ""))
    return 0


@report_app.command("open")
def report_open(
    report: Annotated[Path, typer.Argument(help="A run report's JSON file, or its .html page.")],
) -> int:
    """Open a run report's page in the browser, writing it first if the report has none beside it."""
    import webbrowser

    from harness.reports.html.files import render_file

    page = report if report.suffix == ".html" else report.with_suffix(".html")
    if not page.is_file():
        page, _ = render_file(report)
    uri = page.resolve().as_uri()
    if webbrowser.open(uri):
        _say(f"opened: {uri}")
    else:
        _notice(f"no browser to open it here; open {uri}")
    return 0


_FORWARDED = {"allow_extra_args": True, "ignore_unknown_options": True}


@baseline_app.command("freeze", context_settings=_FORWARDED)
def baseline_freeze(ctx: typer.Context) -> int:
    """`harness run --freeze-baseline`, with every option of `harness run` (-s, -b, -m, --baseline-dir, ...)."""
    return _forward_run(ctx, "--freeze-baseline")


@baseline_app.command("check", context_settings=_FORWARDED)
def baseline_check(ctx: typer.Context) -> int:
    """`harness run --check-baseline`, with every option of `harness run` (-s, -b, -m, --baseline-tolerance, ...)."""
    return _forward_run(ctx, "--check-baseline")


def _forward_run(ctx: typer.Context, flag: str) -> int:
    """Run `harness run` with this command's arguments and `flag`, as if it had been typed."""
    run_command = ctx.find_root().command.get_command(ctx, "run")  # type: ignore[attr-defined]  # the root is a group
    return run_command.main([*ctx.args, flag], prog_name="harness run", standalone_mode=False)


@baseline_app.command("show")
def baseline_show(
    baseline_dir: Annotated[Path | None, typer.Option(help="Baselines folder (default: cases/baselines).")] = None,
) -> int:
    """List every frozen baseline: what it is of, when and by which version it was frozen, its overall scores."""
    for line in stored_lines(BaselineStore(baseline_dir)):
        _say(line)
    return 0


@cases_app.command("validate")
def cases_validate(
    path: Annotated[
        str, typer.Argument(help="A suite folder, builtin, tenure:DIR, or any `harness run --suite` spec.")
    ],
) -> int:
    """Parse and cross-check a suite; one line per problem, exit 2 on the first."""
    if prefix_of(path) is not None:
        (planned,) = kinds_for([path], KindOptions([Mode.BM25]))
        kind = planned.kind
        out_console.print(f"ok: {path}: {kind.total([Mode.BM25])} {kind.unit} ({kind.name})", highlight=False)
        return 0
    loaded = load_suite(path)
    turns = sum(len(c.turns) for c in loaded.session_cases)
    out_console.print(
        f"ok: {loaded.name}: {len(loaded.corpus.memories)} memories, {len(loaded.static_cases)} static cases, "
        f"{len(loaded.session_cases)} session cases ({turns} turns), ruleset {loaded.ruleset}"
    )
    for warning in loaded.warnings:
        err_console.print(f"warning: {warning}", highlight=False, soft_wrap=True)
    return 0


def embed(
    ctx: typer.Context,
    suite: Annotated[
        list[str] | None,
        typer.Option("--suite", "-s", help="Suites to embed, any kind `harness run --suite` takes (default: builtin)."),
    ] = None,
    model: Annotated[
        str, typer.Option(help=f"{', '.join(ENCODERS)}, or a sentence-transformers model path.")
    ] = DEFAULT_MODEL,
    out: Annotated[
        Path | None,
        typer.Option(help="Cache folder to write (default: cases/embeddings when every suite is a built-in one)."),
    ] = None,
    dataset: Annotated[
        str | None, typer.Option(help="Embed a whole public dataset ahead of time (resumable after Ctrl-C).")
    ] = None,
    file: Annotated[Path | None, typer.Option(help="The dataset file (with --dataset).")] = None,
    device: Annotated[
        Device,
        typer.Option(
            help="Where to embed (auto: a dataset on cuda when torch sees a GPU; "
            "suites on the cpu, like their committed vectors)."
        ),
    ] = Device.AUTO,
    shard: Annotated[
        str | None,
        typer.Option(help="With --dataset: embed only part I/N of the distinct texts (by content hash) into --out."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="With --dataset: processes that embed, on the CPU one thread each "
            "(default: one per core on the CPU, one on a GPU, whose batches fill it).",
        ),
    ] = None,
    **own_params: Any,
) -> int:
    """Embed every memory and query text of the suites, or every turn and question of a dataset."""
    from harness.embeddings import default_cache_dir

    if dataset is not None:
        shaping = [name for kind in kind_registry.SPECS for name, *_ in _spec_options(kind, texts_only=True)]
        if suite is not None or any(_given(ctx, name) for name in shaping):
            flags = ", ".join(["--suite", *(_option(ctx, name) for name in shaping)])
            raise HarnessError(f"--dataset embeds a dataset: {' and '.join(flags.rsplit(', ', 1))} do not apply")
        part = parse_shard(shard) if shard is not None else None
        return _embed_dataset(dataset, file, model, device, out, part, workers)
    for flag, value in (("--file", file), ("--shard", shard), ("--workers", workers)):
        if value is not None:
            raise HarnessError(f"{flag} applies to a dataset: give --dataset too")
    suites = suite or [BUILTIN]
    built_in = all(s == BUILTIN or s.endswith(f":{BUILTIN}") for s in suites)
    target = out or (cases_dir() / "embeddings" if built_in else default_cache_dir())
    embedder = suite_embedder(model, device, cache_dir=target)
    kinds = kinds_for(suites, KindOptions([Mode.HYBRID]), _own_options(own_params, texts_only=True))
    texts = list(dict.fromkeys(t for planned in kinds for t in planned.kind.texts()))
    missing = sum(v is None for v in embedder.cache.lookup(texts))
    with _embed_progress(model, missing) as advance:
        embedder.on_progress = advance
        embedder.embed(texts)
    out_console.print(
        f"{len(texts)} texts, {missing} newly embedded with {model} into {embedder.cache.folder}", soft_wrap=True
    )
    return 0


_EMBED_PARAMETERS = inspect.signature(embed, eval_str=True)
"""`embed`'s own parameters (its `__signature__` adds the kinds' options that shape texts)."""
embed.__signature__ = _with_kind_options(_EMBED_PARAMETERS, {}, texts_only=True)  # type: ignore[attr-defined]
app.command()(embed)


def _embed_dataset(
    dataset: str, file: Path | None, model: str, device: str, out: Path | None, part: Shard | None, workers: int | None
) -> int:
    from harness.evaluation.embedders import selection_texts
    from harness.suites.datasets import open_selection

    selection = open_selection(dataset, file)
    embedder = Embedder(model, cache_dir=out, device=device, workers=workers)
    counted = _fill_cache(lambda: selection_texts(selection, part), embedder, dataset)
    out_console.print(
        f"{dataset}{f' shard {part}' if part else ''}: {counted.texts} distinct texts, "
        f"{counted.computed} newly embedded with {model} "
        f"on {embedder.device}; cache: {embedder.cache.folder}",
        highlight=False,
        soft_wrap=True,
    )
    return 0


def _fill_cache(
    texts: Callable[[], Iterable[str]],
    embedder: Embedder,
    what: str,
    check: Callable[[str, Device], TextEncoder] | None = None,
) -> EmbedCount:
    """Embed the texts `texts()` yields that the cache lacks (`embed_streamed`), on a bar with
    texts/s and ETA; after Ctrl-C, says that what was embedded is kept and how to resume. `check`
    loads the model here before anything is computed (a run's exit-code rule for a bad model), and
    the embedder computes with it where it computes in this process."""
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} texts/s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,  # what follows says what was done, and an error stays the only line
    )
    with progress:
        task = progress.add_task(f"reading {what}", total=None, rate="—")

        def plan(_texts: int, missing: int) -> None:
            if missing and check is not None:
                embedder.use_encoder(check(embedder.model, embedder.device))
            progress.update(task, description=f"embedding with {embedder.model} on {embedder.device}", total=missing)

        def advance(count: int) -> None:
            progress.advance(task, count)
            speed = progress.tasks[0].speed
            progress.update(task, rate="—" if speed is None else f"{speed:.1f}")

        embedder.on_progress = advance
        try:
            return embed_streamed(texts, embedder, on_plan=plan)
        except Interrupted as exc:
            done = int(progress.tasks[0].completed)
            progress.stop()
            exc.detail = (
                f"{done} texts embedded this run are kept in {embedder.cache.folder}; "
                "run the same command again to resume"
            )
            raise


@contextmanager
def _embed_progress(model: str, total: int) -> Iterator[Callable[[int], None]]:
    """A bar with ETA and texts/s for `total` texts; hidden when there are too few to notice."""
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console,
        disable=total < 200,
    )
    with progress:
        task = progress.add_task(f"embedding with {model}", total=total)
        yield lambda count: progress.advance(task, count)


@app.command()
def bench(
    repeat: Annotated[int, typer.Option(min=1, help="Timed repetitions of the whole run.")] = 5,
    backend: Annotated[str, typer.Option("--backend", "-b")] = "embedded",
    datasets: Annotated[
        bool, typer.Option(help="Benchmark the public datasets instead: LoCoMo, LongMemEval oracle and sample.")
    ] = False,
    synthetic: Annotated[
        int,
        typer.Option(
            min=0, help="With --datasets: also a LongMemEval-S-sized file of N haystacks built from the sample."
        ),
    ] = 0,
    out: Annotated[Path, typer.Option(help="Report folder (--datasets, --embeddings).")] = Path("reports"),
    embeddings: Annotated[
        bool,
        typer.Option(help="Benchmark the encoders instead: texts/s on dataset turns and the retrieval each gives."),
    ] = False,
    model: Annotated[
        list[str],
        typer.Option(help=f"With --embeddings: encoders to compare with the float one ({', '.join(ENCODERS)})."),
    ] = list(ENCODERS),
    texts: Annotated[int, typer.Option(min=1, help="With --embeddings: LongMemEval turns timed per encoder.")] = 1000,
    device: Annotated[Device, typer.Option(help="With --embeddings: where to embed.")] = Device.AUTO,
) -> int:
    """Time the whole built-in run in every mode and per-query latency; or the datasets (--datasets)."""
    if embeddings:
        if datasets or synthetic:
            raise HarnessError("--embeddings is its own benchmark: --datasets and --synthetic do not apply")
        return _bench_embeddings(check_backend(backend), model, texts, device, out)
    if not datasets:
        from harness.benchmarks.builtin import bench_builtin

        bench_builtin(check_backend(backend), repeat, suite_embedder(DEFAULT_MODEL), _say)
        return 0
    import functools

    from harness.benchmarks.datasets import HEADER, bench_datasets, row_cells
    from harness.embeddings.embedder import Embedder

    def cells(server_url: str | None = None) -> tuple[list, list[Path]]:
        factory = (
            functools.partial(connect, backend)
            if server_url is None
            else functools.partial(connect, backend, server_url)
        )
        return bench_datasets(
            backend_factories={backend: factory}, synthetic_haystacks=synthetic, out_dir=out, embedder_factory=Embedder
        )

    if check_backend(backend) not in registry.servers():
        rows, paths = cells()
    else:
        server_url, container = start_server(backend, f"bench-{os.getpid()}")
        try:
            rows, paths = cells(server_url)
        finally:
            container.stop()
    print_scorecard(Scorecard("dataset benchmark", HEADER, [row_cells(r) for r in rows]))
    for path in paths:
        out_console.print(f"report: {path}")
    return 0


def _bench_embeddings(backend: str, models: list[str], texts: int, device: str, out: Path) -> int:
    import functools

    from harness.backends.embedded import EmbeddedBackend
    from harness.benchmarks.encoders import bench_encoders
    from harness.embeddings.embedder import Embedder

    if backend in registry.servers():
        raise HarnessError("bench --embeddings runs on the embedded backend: the encoders, not the engine, differ")
    bench_encoders(
        models=models,
        texts=texts,
        backend_factory=EmbeddedBackend,
        embedder_factory=functools.partial(Embedder, device=device),
        out_dir=out,
        print_line=_say,
    )
    return 0


@app.command()
def up(
    backend: Annotated[str, typer.Argument(help=f"One of: {', '.join(registry.servers())}.")],
    port: Annotated[int | None, typer.Option(help="Host port on 127.0.0.1 (default: a free one).")] = None,
) -> int:
    """Start one backend's container, seed the built-in corpus with its indexes, keep it until Ctrl-C."""
    import time
    import uuid

    from harness.pipeline import MemoryPipeline, PipelineSettings

    servers = registry.servers()
    if check_backend(backend) not in servers:
        raise HarnessError(f"{backend!r} runs in process; `harness up` starts one of: {', '.join(servers)}")
    require_containers()
    err_console.print(f"starting the {backend} container…", highlight=False)
    server_url, container = start_server(backend, f"up-{uuid.uuid4().hex[:12]}", host_port=port)
    try:
        engine = connect(backend, server_url)
        suite = load_suite(BUILTIN)
        try:
            embedder = suite_embedder(DEFAULT_MODEL) if engine.info().vector_engine else None
            pipeline = MemoryPipeline.open(engine, "builtin", PipelineSettings(), embedder)
            pipeline.load(suite.corpus.memories)
            info = engine.info()
        finally:
            engine.close()
        out_console.print(f"{backend} is up: {info.server_version} ({info.engine}), container {container.name}")
        for line in up_lines(backend, server_url, len(suite.corpus.memories)):
            out_console.print(line)
        out_console.print("Ctrl-C stops and removes it.")
        while True:
            time.sleep(3600)
    finally:
        container.stop()


def up_lines(backend: str, server_url: str, memories: int) -> list[str]:
    """What `harness up` says about a seeded server; the sample query only where the backend has one."""
    sample = registry.descriptor(backend).sample_query
    return [
        f"  url:     {server_url}",
        f"  seeded:  namespace 'builtin', {memories} memories",
        *([f"  query:   {sample.format(url=server_url)}"] if sample is not None else []),
        f"  suites:  harness run -b {backend} --url '{server_url}' -m bm25",
    ]


@app.command()
def down(
    url: Annotated[
        str | None,
        typer.Option(help="Instead: remove what killed `--url` runs left on this server (as recorded locally)."),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Remove every harness container and network on the engine, those of live runs (of any process, "
            "user or host) included.",
        ),
    ] = False,
) -> int:
    """Remove the containers (and networks) of harness runs whose process on this host is gone, and
    keep those of live runs and of other hosts (--all: remove them too); or, with --url, the
    namespaces and extension that killed runs left on that server, and nothing else."""
    if url is not None:
        return _down_url(url)
    require_containers()
    from harness.containers import ContainerError, NoDockerEngine, remove_all, remove_dead

    try:
        sweep = remove_all() if everything else remove_dead()
    except NoDockerEngine as exc:  # nothing runs, so nothing is left to remove: done, not a failure
        out_console.print(f"removed 0 container(s): {exc}", highlight=False, soft_wrap=True)
        return 0
    except ContainerError as exc:
        raise BackendUnavailable(str(exc)) from None
    whose = "of every harness run, live ones included" if everything else "of runs whose process is gone"
    removed = f": {', '.join(sweep.removed)}" if sweep.removed else ""
    out_console.print(f"removed {len(sweep.removed)} container(s) {whose}{removed}", highlight=False, soft_wrap=True)
    for name, why in sweep.kept:
        out_console.print(f"kept {name}: {why} (--all removes it)", highlight=False, soft_wrap=True)
    return 0


def _down_url(url: str) -> int:
    from harness.backends.recorded import remove_leftovers

    if url.startswith(("http://", "https://")):
        droppers: dict[str, Callable[[Entry], bool]] = {
            "http": lambda entry: http_system.drop_namespace(url, entry.name)
        }
    else:  # systems that write to the engine on their own (Popoto's keys, mem0's tables)
        droppers = {spec.name: partial(spec.drop, url) for spec in systems_registry.installed().values() if spec.drop}
    result = remove_leftovers(url, droppers)
    names = ", ".join(f"{e.kind} {e.name}" for e in result.removed)
    out_console.print(f"{result.server}: removed {len(result.removed)} leftover(s)" + (f": {names}" if names else ""))
    for entry, reason in result.kept:
        out_console.print(f"{result.server}: kept {entry.kind} {entry.name}: {reason}")
    for entry, reason in result.failed:
        _error(f"error: {result.server}: could not drop {entry.kind} {entry.name}: {reason}")
    return 3 if result.failed else 0


@images_app.command("build")
def images_build(
    backend: Annotated[
        list[str] | None, typer.Argument(help="Backends (default: every one with a Dockerfile).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Rebuild images that already exist.")] = False,
) -> int:
    """Build the local images from docker/ (making the debian:trixie-slim base first if needed)."""
    from harness.containers import ContainerError, build_images

    names = [registry.container_spec(b) for b in backend or registry.servers()]
    try:
        results = build_images(data_root(), names, lambda line: err_console.print(line, highlight=False), force=force)
    except ContainerError as exc:
        raise BackendUnavailable(str(exc)) from None
    for r in results:
        status = f"built in {r.seconds:.1f} s" if r.built else "already present"
        out_console.print(f"{r.backend}: {r.tag} {status}")
    return 0


@images_app.command("compose")
def images_compose() -> int:
    """Write docker/compose.yaml from the container specs (containers/*.toml) of every server backend."""
    from harness.containers import load_spec
    from harness.containers.compose import COMPOSE_FILE, compose_yaml
    from harness.containers.images import DOCKER_DIR

    specs = [load_spec(registry.container_spec(name), data_root()) for name in registry.servers()]
    path = data_root() / DOCKER_DIR / COMPOSE_FILE
    path.write_text(compose_yaml(specs), encoding="utf-8")
    out_console.print(f"written: {path}", highlight=False)
    return 0


@app.command("backends")
def backends_list(
    json_names: Annotated[bool, typer.Option("--json", help="Only the names, as a JSON list (the CI matrix).")] = False,
) -> int:
    """List the backends: where each runs and whether the default test run covers it."""
    if json_names:
        out_console.print(json.dumps(list(registry.names())), highlight=False, markup=False, soft_wrap=True)
        return 0
    table = Table(title="backends")
    for column in ("backend", "runs", "default test run"):
        table.add_column(column)
    for name in registry.names():
        found = registry.descriptor(name)
        where = "in process" if found.server is None else f"container (containers/{found.server}.toml)"
        table.add_row(name, where, "yes" if found.local else "no (pytest --backend " + name + ")")
    out_console.print(table)
    return 0


@app.command()
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="The checks as a JSON list, for scripts.")] = False,
) -> int:
    """Say what is installed, what is missing and the one command that fixes each (exit 1 if something is missing)."""
    from dataclasses import asdict

    from harness.doctor import Status, checks, healthy

    found = checks()
    if as_json:
        out_console.print(json.dumps([asdict(c) for c in found]), highlight=False, markup=False, soft_wrap=True)
        return 0 if healthy(found) else 1
    table = Table(title="harness doctor")
    for column in ("check", "status", "detail", "fix"):
        table.add_column(column, overflow="fold")
    style = {Status.OK: "green", Status.MISSING: "red", Status.OPTIONAL: "yellow"}
    for c in found:
        table.add_row(escape(c.name), f"[{style[c.status]}]{c.status}[/]", escape(c.detail), escape(c.fix))
    out_console.print(table)
    return 0 if healthy(found) else 1


@contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGINT and SIGTERM raise `Interrupted`, so both unwind through the same clean-up (containers,
    namespaces, partial reports); a second signal during that clean-up is ignored rather than cutting it short,
    and stays ignored after the block: the process is ending with the first one's line and exit code."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def interrupt(signum: int, _frame: object) -> None:
        for handled in (signal.SIGINT, signal.SIGTERM):
            signal.signal(handled, signal.SIG_IGN)
        received.append(signum)
        raise Interrupted(signal.Signals(signum).name, 128 + signum)

    previous = {s: signal.signal(s, interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        if not received:
            for handled, handler in previous.items():
                signal.signal(handled, handler)


def main() -> None:
    """Entry point: user mistakes become one line on stderr and a documented exit code.

    Library log records (psycopg's "error ignored terminating" after a lost connection) are not
    the CLI's output: the run reports errors itself. Models are never downloaded at run time
    (HF_HUB_OFFLINE=1 unless set).
    """
    psycopg_log = logging.getLogger("psycopg")
    if not any(isinstance(h, logging.NullHandler) for h in psycopg_log.handlers):
        psycopg_log.addHandler(logging.NullHandler())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    run.__signature__ = _run_signature()  # type: ignore[attr-defined]  # the kinds registered now
    embed.__signature__ = _with_kind_options(_EMBED_PARAMETERS, {}, texts_only=True)  # type: ignore[attr-defined]
    warnings.showwarning = _show_warning
    try:
        with _signals_interrupt():
            code = app(standalone_mode=False)
    except Interrupted as exc:
        _error(f"interrupted by {exc.signal_name}" + (f": {exc.detail}" if exc.detail else ""))
        sys.exit(exc.exit_code)
    except typer.Abort:
        _error("interrupted")
        sys.exit(130)
    except typer.TyperException as exc:
        _error(f"error: {exc.format_message()}")
        sys.exit(2)
    except HarnessError as exc:
        _error(f"error: {exc}")
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
