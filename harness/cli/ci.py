"""`harness ci`: what the GitHub Action (`action.yml`) runs, as one command that runs anywhere.

It is `harness run --check-baseline --junit OUT/junit.xml` over the systems, backends, suites and
modes an action's inputs name (each input a whitespace-separated list), then the results where
reviewers look: the scorecards and the baseline check as escaped Markdown appended to `--summary`,
and the step's outputs (`reports`, `junit`, `pass-rate`, `regressed-baselines`, `regressed-cases`)
appended to `--outputs`. Not given, they are `$GITHUB_STEP_SUMMARY` and `$GITHUB_OUTPUT` where
set, so on a runner the step never writes nothing. A run that stops, whatever stopped it (bad
input, a lost engine, a signal, a crash), says so in the summary too and leaves its outputs (those
it has), then exits as `harness run` would; only a `--summary` or `--outputs` that cannot be
written is a line on stderr alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer

from harness.backends import registry
from harness.baselines import DEFAULT_TOLERANCE, Verdict
from harness.cli.app import app
from harness.cli.console import say
from harness.cli.logs import routed_logs
from harness.cli.run import RUN_UI
from harness.cli.servers import images_build
from harness.errors import HarnessError, Interrupted
from harness.evaluation.crew import MAX_CONCURRENCY
from harness.evaluation.matrix import MatrixOutcome, MatrixRequest, run_matrix
from harness.files import check_output
from harness.pipeline import Mode
from harness.reports.ci_summary import stopped_markdown, summary_markdown
from harness.reports.junit import Tally, write_junit
from harness.reports.writer import report_in
from harness.suites import BUILTIN
from harness.systems.protocol import REFERENCE

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
OUTPUTS_ENV = "GITHUB_OUTPUT"
"""Where a GitHub runner reads a step's summary and outputs: `--summary` and `--outputs` by default."""


def words(value: str) -> list[str]:
    """An action input's list: its items separated by spaces or line breaks."""
    return value.split()


def modes_of(value: str) -> list[Mode] | None:
    """The modes an input names (none named: None, every mode, as `harness run`'s default)."""
    names = words(value)
    known = {m.value: m for m in Mode}
    if unknown := [n for n in names if n not in known]:
        raise HarnessError(f"--modes: unknown mode {', '.join(unknown)} (one of: {', '.join(known)})")
    return [known[n] for n in names] or None


def _append(path: Path | None, text: str) -> None:
    """Append to a file GitHub reads after the step (`$GITHUB_STEP_SUMMARY`, `$GITHUB_OUTPUT`)."""
    if path is not None:
        with path.open("a", encoding="utf-8", errors="backslashreplace") as handle:  # a lone surrogate quoted
            handle.write(text)


OUTPUTS = ("reports", "junit", "pass-rate", "regressed-baselines", "regressed-cases")
"""The step's outputs, every one written whether the run finished or stopped."""


def _output_lines(values: Mapping[str, object]) -> str:
    """`$GITHUB_OUTPUT` lines (`name=value`; no value holds a line break), one per output, empty where unknown."""
    return "".join(f"{name}={values.get(name, '')}\n" for name in OUTPUTS)


def outputs_text(reports: Path, junit: Path, tally: Tally, regressed: Mapping[str, int]) -> str:
    """The step's outputs; `regressed` as the summary has it: each baseline whose check failed,
    with its regressed cases."""
    rate = "" if tally.pass_rate is None else f"{tally.pass_rate:.4f}"
    return _output_lines(
        {
            "reports": reports,
            "junit": junit,
            "pass-rate": rate,
            "regressed-baselines": len(regressed),
            "regressed-cases": sum(regressed.values()),
        }
    )


def stopped_outputs(reports: Path) -> str:
    """The outputs of a run that stopped before it reported: its report folder (where any finished
    part is), the rest empty."""
    return _output_lines({} if any(c in str(reports) for c in "\r\n") else {"reports": reports})


def _stopped(exc: BaseException) -> tuple[int, str]:
    """The exit code and the line of what stopped a run, as `harness.cli.main` will say it."""
    if isinstance(exc, Interrupted):
        return exc.exit_code, f"interrupted by {exc.signal_name}" + (f": {exc.detail}" if exc.detail else "")
    if isinstance(exc, HarnessError):
        return exc.exit_code, str(exc)
    return 1, f"the harness crashed: {type(exc).__name__}: {exc}"


@app.command()
def ci(
    systems: Annotated[str, typer.Option(help="Systems under test, space-separated (http:URL, an installed name).")] = (
        REFERENCE
    ),
    backends: Annotated[str, typer.Option(help="Backends, space-separated.")] = "embedded",
    suites: Annotated[str, typer.Option(help="Suites of any kind (`harness run --suite`), space-separated.")] = BUILTIN,
    modes: Annotated[str, typer.Option(help="Retrieval modes, space-separated (default: every mode).")] = "",
    baseline_dir: Annotated[
        Path | None, typer.Option(help="The committed baselines (default: cases/baselines).")
    ] = None,
    check_baseline: Annotated[bool, typer.Option(help="Check each mode's scores against its baseline.")] = True,
    baseline_tolerance: Annotated[
        float, typer.Option(min=0.0, help="How far a score may fall below its baseline.")
    ] = DEFAULT_TOLERANCE,
    url: Annotated[str | None, typer.Option(help="A server the job started (e.g. a service container).")] = None,
    concurrency: Annotated[
        int,
        typer.Option(min=1, max=MAX_CONCURRENCY, help="Up to N haystacks, scenarios or cases at once (`harness run`)."),
    ] = 1,
    build_images: Annotated[
        bool, typer.Option(help="Build the server backends' images here (`harness images build`) instead of pulling.")
    ] = False,
    out: Annotated[Path, typer.Option(help="Report folder (JSON, Markdown, HTML, JUnit).")] = Path("harness-reports"),
    summary: Annotated[
        Path | None,
        typer.Option(envvar=SUMMARY_ENV, help="Append the Markdown summary here (default: the runner's summary)."),
    ] = None,
    outputs: Annotated[
        Path | None,
        typer.Option(envvar=OUTPUTS_ENV, help="Append the step's outputs here (default: the runner's outputs)."),
    ] = None,
) -> int:
    """Run as a CI step: `harness run --check-baseline --junit`, then a Markdown summary and the step's outputs.

    On a GitHub runner the summary and outputs go where the runner reads them ($GITHUB_STEP_SUMMARY,
    $GITHUB_OUTPUT) unless --summary or --outputs names another file. The outputs: reports, junit,
    pass-rate, regressed-baselines (baselines whose check failed) and regressed-cases (cases that
    regressed, once per baseline). Exit codes are `harness run`'s: 1 on a regression or a failed
    gate, 2 when a baseline is missing.
    """
    if summary is not None:  # "" is "." (a folder)
        check_output(summary, "--summary", owned=report_in(out))
    told: Path | None = None  # the outputs, once they can be written
    try:
        if outputs is not None:
            check_output(outputs, "--outputs", owned=report_in(out))
            told = outputs
        if any(c in str(out) for c in "\r\n"):
            raise HarnessError("--out: a line break in its name cannot be a step output")
        request = MatrixRequest(
            suites=words(suites),
            backends=words(backends),
            systems=words(systems),
            modes=modes_of(modes),
            out=out,
            url=url,
            concurrency=concurrency,
            check_baseline=check_baseline,
            baseline_dir=baseline_dir,
            baseline_tolerance=baseline_tolerance,
        )
        junit = out / "junit.xml"
        check_output(junit, "the JUnit file")
        if build_images and (servers := [b for b in request.backends if b in registry.servers()]):
            images_build(servers)
        with routed_logs(False):  # a system's own log lines stay out of the job's log, as in a quiet `run`
            outcome = run_matrix(request, RUN_UI)
        tally = write_junit(junit, [r.finished.paths[0] for r in outcome.runs])
    except BaseException as exc:  # a signal (`Interrupted`) and a crash too: the job's reader is told
        code, line = _stopped(exc)
        _append(summary, stopped_markdown(code, line))
        _append(told, stopped_outputs(out))
        raise
    regressed = _regressed(outcome)
    _append(summary, _summary(outcome, regressed, tally))
    _append(outputs, outputs_text(out, junit, tally, regressed))
    say(f"junit: {junit}")
    return outcome.exit_code


def _regressed(outcome: MatrixOutcome) -> dict[str, int]:
    """Each baseline whose check failed, with how many of its cases regressed (once each)."""
    checks = (c for r in outcome.runs if r.gated and r.gated.result for c in r.gated.result.checked)
    return {str(c.key): len(c.comparison.cases(Verdict.REGRESSED)) for c in checks if not c.passed}


def _summary(outcome: MatrixOutcome, regressed: Mapping[str, int], tally: Tally) -> str:
    return summary_markdown(
        outcome.exit_code,
        [r.finished.report.scorecard for r in outcome.runs],
        [f"{r.system} on {r.backend}: {line}" for r in outcome.runs for line in r.verdict.lines],
        regressed,
        [line for r in outcome.runs if r.gated and r.gated.result for line in r.gated.result.lines],
        tally,
    )
