"""`harness compare`, `leaderboard`, `merge` and `report render|diff|open`: reports of any kind,
read back, combined and drawn again."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from harness.cli.app import app, report_app
from harness.cli.console import err_console, error, notice, out_console, print_scorecard, say
from harness.evaluation import kinds as kind_registry
from harness.evaluation import runner
from harness.files import check_output
from harness.reports import compare as compare_reports
from harness.reports.envelope import write_report
from harness.reports.reader import EDITED_MARK, Reader
from harness.reports.writer import report_json, write_run_files

ALLOW_EDITED = (
    f"Read reports whose checksum does not match (edited since written) or that have none, each marked {EDITED_MARK}."
)


@app.command()
def compare(
    reports: Annotated[
        list[Path] | None,
        typer.Argument(help="Run reports (default: the newest complete one of each backend and mode)."),
    ] = None,
    out: Annotated[Path, typer.Option(help="Report folder to read and write.")] = Path("reports"),
    allow_edited: Annotated[bool, typer.Option(help=ALLOW_EDITED)] = False,
) -> int:
    """Side-by-side table of run reports of any kind, and whether runs differ significantly on shared items."""
    reader = Reader.of(os.environ, allow_edited=allow_edited)
    loaded = compare_reports.load_reports(reports or compare_reports.default_reports(out, reader), reader)
    check_output(out, "--out", folder=True)  # once the reports are read: bad input makes no folder
    found = compare_reports.differences(loaded)
    print_scorecard(compare_reports.table(loaded))
    for difference in found:
        say(difference.line())
    from harness.reports.html.compare_page import render_compare

    markdown = compare_reports.comparison_markdown(loaded, found)
    contents: dict[str, str | bytes] = {"md": markdown, "html": render_compare(loaded, found)}
    try:
        from harness.reports.leaderboard import board
        from harness.reports.leaderboard_chart import leaderboard_chart

        contents["png"], _ = leaderboard_chart(board(loaded, []))
    except ImportError:
        err_console.print("no chart: install the chart extra (matplotlib)", highlight=False)
    paths = write_run_files(out, "compare", contents)
    say(f"written: {', '.join(str(p) for p in paths)}")
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
    allow_edited: Annotated[bool, typer.Option(help=ALLOW_EDITED)] = False,
) -> int:
    """The public suites ranked (ours / published), then the built-in suites per backend."""
    reader = Reader.of(os.environ, allow_edited=allow_edited)
    loaded = compare_reports.load_reports(reports or compare_reports.default_reports(out, reader), reader)
    write_leaderboard(loaded, out)
    return 0


def write_leaderboard(loaded: list[compare_reports.Compared], out: Path) -> None:
    """The leaderboard of the reports, printed and written to `out` (Markdown, JSON, PNG, page)."""
    from harness.reports import leaderboard as boards
    from harness.reports.html.leaderboard_page import render_leaderboard

    check_output(out, "--out", folder=True)  # once the reports are read: bad input makes no folder
    board = boards.board(loaded, boards.published_figures())
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
    say(f"written: {', '.join(str(p) for p in paths)}")


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
    from harness.evaluation.merge import merge_reports

    merged = merge_reports(reports, kind_registry.SPECS, Reader.of(os.environ))
    check_output(out, "--out", folder=True)  # once the shards are read: bad input makes no folder
    verdict = runner.verdict(merged.results, merged.report, error_threshold)
    written, _, shown = write_report(out, merged.envelope, merged.report, latest=verdict.exit_code != 3)
    print_scorecard(shown.scorecard)
    for path in written:
        say(f"report: {path}")
    if merged.incomplete is not None:
        error(f"merge: incomplete: {merged.incomplete}; rerun that shard and merge again")
        return 3
    for line in verdict.lines:
        error(f"merge: {line}")
    return verdict.exit_code


@report_app.command("render")
def report_render(
    report: Annotated[Path, typer.Argument(help="A run report's JSON file (any kind, old ones too).")],
    out: Annotated[Path | None, typer.Option(help="Where to write the page (default: beside it, .html).")] = None,
    allow_edited: Annotated[bool, typer.Option(help=ALLOW_EDITED)] = False,
) -> int:
    """Write a run report's HTML page again from its JSON (replacing only a page this harness wrote)."""
    from harness.reports.html.files import render_file

    page, replaced = render_file(Reader.of(os.environ, allow_edited=allow_edited), report, out)
    say(f"page: {page}" + (" (replaced)" if replaced else ""))
    return 0


@report_app.command("diff")
def report_diff(
    base: Annotated[Path, typer.Argument(help="The report to compare against (a baseline run, another backend).")],
    new: Annotated[Path, typer.Argument(help="The report of the same kind to compare.")],
    out: Annotated[Path | None, typer.Option(help="Where to write the page (default: <NEW>-vs-<BASE>.html).")] = None,
    allow_edited: Annotated[bool, typer.Option(help=ALLOW_EDITED)] = False,
) -> int:
    """A page of what changed from BASE to NEW, item by item: regressed, fixed, changed, added, removed."""
    from harness.reports.html.files import diff_file

    page, replaced = diff_file(Reader.of(os.environ, allow_edited=allow_edited), base, new, out)
    say(f"page: {page}" + (" (replaced)" if replaced else ""))
    return 0


@report_app.command("open")
def report_open(
    report: Annotated[Path, typer.Argument(help="A run report's JSON file, or its .html page.")],
    allow_edited: Annotated[bool, typer.Option(help=ALLOW_EDITED)] = False,
) -> int:
    """Open a run report's page in the browser, writing it first if the report has none beside it."""
    import webbrowser

    from harness.reports.html.files import render_file

    page = report if report.suffix == ".html" else report.with_suffix(".html")
    if not page.is_file():
        page, _ = render_file(Reader.of(os.environ, allow_edited=allow_edited), report)
    uri = page.resolve().as_uri()
    if webbrowser.open(uri):
        say(f"opened: {uri}")
    else:
        notice(f"no browser to open it here; open {uri}")
    return 0
