"""`harness run`: its options, the refusal of an option the run would ignore, and how a run of the
matrix (`evaluation/matrix.py`) is shown: bars, scorecards, report files, verdicts, baselines."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from harness.backends import registry
from harness.baselines import DEFAULT_TOLERANCE
from harness.cli.app import app
from harness.cli.console import (
    error,
    fill_bar,
    given,
    notice,
    option_name,
    out_console,
    plain,
    print_scorecard,
    say,
    session_bars,
)
from harness.cli.kind_options import KindOptioned, own_options, spec_options
from harness.cli.logs import routed_logs
from harness.embeddings import DEFAULT_MODEL
from harness.embeddings.device import Device
from harness.errors import HarnessError
from harness.evaluation import kinds as kind_registry
from harness.evaluation import runner
from harness.evaluation.crew import MAX_CONCURRENCY
from harness.evaluation.kind import KindSpec
from harness.evaluation.kinds import selected, spec_of
from harness.evaluation.matrix import Described, Gated, MatrixRequest, MatrixUI, run_matrix
from harness.files import check_output
from harness.pipeline import Mode
from harness.reports.junit import write_junit
from harness.reports.writer import report_in
from harness.shards import parse_shard
from harness.suites import BUILTIN
from harness.systems.protocol import REFERENCE

HONOURED = ("fail_under", "trec", "dry_run")
"""Common options of `harness run` that only some kinds act on (each spec's `honours` says which)."""


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
            help="Every kind's suite formats (see `_annotations`).",
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
    concurrency: Annotated[
        int,
        typer.Option(
            min=1,
            max=MAX_CONCURRENCY,
            help="Run up to N haystacks, scenarios or cases at once (the system may take fewer); same report.",
        ),
    ] = 1,
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
    junit: Annotated[
        Path | None,
        typer.Option(help="Also write every case of the run as a JUnit XML file here (one testcase per item)."),
    ] = None,
    show_logs: Annotated[
        bool,
        typer.Option(
            "-v",
            "--show-logs",
            show_default=False,
            help="Show the log lines of the system under test and the libraries it uses (quiet by default).",
        ),
    ] = False,
    **own_params: Any,
) -> int:
    """Run suites (or a public dataset) on a backend in each mode; print the scorecard, write JSON + Markdown reports.

    Errored cases are counted and shown; the exit code is 3 if the backend was lost mid-run, else 1
    if more than --error-threshold of the results errored or a mode is under --fail-under.
    """
    own = own_options(own_params)
    check_applicable(ctx, _run_specs(suite, own), own)
    request = MatrixRequest(
        suites=suite,
        own=own,
        backends=backend,
        systems=system,
        modes=mode if given(ctx, "mode") else None,
        out=out,
        limit=limit,
        fail_under=fail_under,
        model=model,
        device=device,
        url=url,
        allow_extension=allow_extension,
        error_threshold=error_threshold,
        concurrency=concurrency,
        trec=trec,
        shard=parse_shard(shard) if shard is not None else None,
        dry_run=dry_run,
        check_baseline=check_baseline,
        freeze_baseline=freeze_baseline,
        baseline_dir=baseline_dir,
        baseline_tolerance=baseline_tolerance,
    )
    if junit is not None and not dry_run:
        check_output(junit, "--junit", owned=report_in(out))
    with routed_logs(show_logs):
        outcome = run_matrix(request, RUN_UI)
    for described in outcome.described:
        _print_dry_run(described)
    if junit is not None and not dry_run:
        write_junit(junit, [r.finished.paths[0] for r in outcome.runs])
        say(f"junit: {junit}")
    return outcome.exit_code


def _annotations() -> dict[str, Any]:
    """`--suite` and `--trec` as their help names the registered kinds: each kind's suite formats,
    and which kinds rank documents (TREC files) and which do not."""
    formats = "; ".join(k.suite_help for k in kind_registry.SPECS)
    suite = typer.Option("--suite", "-s", rich_help_panel="Suites", help=f"{formats} (repeatable).")
    ranked = ", ".join(k.title.lower() for k in kind_registry.SPECS if "trec" in k.honours)
    unranked = ", ".join(k.title.lower() for k in kind_registry.SPECS if "trec" not in k.honours)
    trec = typer.Option(
        help=f"Also write each mode's run and qrels as TREC files ({ranked}: they rank documents against "
        f"relevance judgements; {unranked or 'none'} judge what an answer or context holds, not a ranking: refused)."
    )
    return {"suite": Annotated[list[str], suite], "trec": Annotated[bool, trec]}


RUN = KindOptioned.of(run, texts_only=False, replaced=_annotations)
app.command()(run)


def _run_specs(suites: Sequence[str], own: dict[str, Any]) -> list[KindSpec[Any, Any]]:
    """The kinds a run runs: the one an own option selects (`--dataset`), else those `--suite` names."""
    if (chosen := selected(own)) is not None:
        return [chosen[0]]
    return list(dict.fromkeys(spec_of(s) for s in suites))


def check_applicable(ctx: typer.Context, kinds: Sequence[KindSpec[Any, Any]], own: dict[str, Any]) -> None:
    """An option the run would ignore is a mistake: say so rather than run something else than asked."""
    names = ", ".join(k.title.lower() for k in kinds)
    if selected(own) is not None and given(ctx, "suite"):
        raise HarnessError(f"{option_name(ctx, 'suite')} does not apply to {names}")
    for kind in kind_registry.SPECS:
        if kind in kinds:
            continue
        if passed := [option_name(ctx, name) for name, *_ in spec_options(kind) if given(ctx, name)]:
            ways = [f"--{kind.selector} NAME"] if kind.selector else []
            ways += [f"--suite {', '.join(kind.prefixes)}:..."] if kind.prefixes else []
            where = " or ".join(ways) or kind.suite_help
            raise HarnessError(
                f"{', '.join(passed)} does not apply to {names} (an option of {kind.title.lower()}: {where})"
            )
    for name in HONOURED:
        if given(ctx, name) and (deaf := [k.title.lower() for k in kinds if name not in k.honours]):
            raise HarnessError(f"{option_name(ctx, name)} does not apply to {', '.join(deaf)}")


def _print_dry_run(described: Described) -> None:
    table = Table(title=plain(f"dry run: {', '.join(described.suites)}"), show_header=False)
    for label, value in described.rows:
        table.add_row(plain(label), plain(value))
    out_console.print(table)


def _reported(_name: str, finished: runner.Finished[Any]) -> None:
    print_scorecard(finished.report.scorecard)
    say(f"reports: {', '.join(str(p) for p in finished.paths)}")
    if page := next((p for p in finished.paths if p.suffix == ".html"), None):
        say(f"page: {page.resolve().as_uri()}")


def _judged(name: str, verdict: runner.Verdict) -> None:
    for line in verdict.lines:
        error(f"{name}: {line}")


def _gated(name: str, gated: Gated) -> None:
    if gated.result is None:
        error(f"{name}: baselines not frozen: a failed run is no baseline")
        return
    for line in [*gated.result.lines, f"baseline history: {gated.history_file}"]:
        say(line)


RUN_UI = MatrixUI(session_bars, fill_bar, notice, say, _reported, _judged, _gated)
"""How `harness run` shows a run: bars and notices on stderr, reports and baseline lines on stdout."""
