"""The `harness` command and its groups; each command module adds its commands to them."""

from __future__ import annotations

import typer

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
