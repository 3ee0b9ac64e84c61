"""`harness board`: every built-in system on every public suite it can run, resumable, then the
leaderboard of them all (`benchmarks/board.py`)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from harness.benchmarks.board import Job, Sources, make_board, needs_missing, plan
from harness.cli.app import app
from harness.cli.console import out_console, say
from harness.cli.reports import write_leaderboard
from harness.reports import compare as compare_reports
from harness.reports.reader import Reader
from harness.suites.datasets import SPECS, data_dirs, find_file

PMB_FILES = ("beliefs.seed.json", "retrieval.cases.json", "session-retrieval.cases.json")


def _pmb() -> Path | None:
    """PrecisionMemBench's fixtures in a data folder (`precisionmembench/`), if any."""
    return next(
        (d / "precisionmembench" for d in data_dirs() if (d / "precisionmembench" / PMB_FILES[1]).is_file()), None
    )


CHECKOUTS = {
    "mnemonic": ("cmd", "benchmark-quality", "scenarios.go"),
    "acervo": ("tests", "integration", "scenarios", "p1_benchmark.yaml"),
    "nano-brain": ("benchmarks", "capability", "dataset.json"),
}
"""Per peer, the folder a data folder may hold its checkout under, and a file that checkout has."""


def _checkout(peer: str) -> Path | None:
    """A checkout of the peer's repository in a data folder (`mnemonic/`, `acervo/`, `nano-brain/`), if any."""
    return next((d / peer for d in data_dirs() if (d / peer).joinpath(*CHECKOUTS[peer]).is_file()), None)


def _run_job(job: Job, folder: Path) -> int:
    """`harness run` for the job in a process of its own, its output in the job's `run.log`."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "run.log").open("w", encoding="utf-8") as log:
        command = [sys.executable, "-m", "harness", "run", *job.args, "--out", str(folder)]
        return subprocess.run(
            command, stdout=log, stderr=subprocess.STDOUT, check=False, env=os.environ.copy()
        ).returncode


@app.command()
def board(
    out: Annotated[Path, typer.Option(help="Board folder: one folder per job, its state, the leaderboard.")] = Path(
        "board"
    ),
    pmb: Annotated[
        Path | None,
        typer.Option(help="PrecisionMemBench's fixtures folder (default: a data folder's precisionmembench/)."),
    ] = None,
    longmemeval_s: Annotated[
        Path | None, typer.Option(help="LongMemEval-S file (default: as --dataset finds it).")
    ] = None,
    locomo: Annotated[Path | None, typer.Option(help="LoCoMo file (default: as --dataset finds it).")] = None,
    service: Annotated[
        str | None, typer.Option(help="An HTTP memory service to put on the board too (http:URL).")
    ] = None,
    mnemonic: Annotated[
        Path | None,
        typer.Option(help="A checkout of Mnemonic's repository at 8361855 (default: a data folder's mnemonic/)."),
    ] = None,
    acervo: Annotated[
        Path | None,
        typer.Option(help="A checkout of Acervo's repository at v0.5.0, 461ebff (default: a data folder's acervo/)."),
    ] = None,
    nano_brain: Annotated[
        Path | None,
        typer.Option(help="A checkout of nano-brain's repository at 4b15988 (default: a data folder's nano-brain/)."),
    ] = None,
    only: Annotated[list[str] | None, typer.Option(help="Run only the jobs whose name starts so (repeatable).")] = None,
    dry_run: Annotated[bool, typer.Option(help="List the jobs and what each lacks; run nothing.")] = False,
) -> int:
    """Every built-in system on every public suite it can run, resumable, then the leaderboard."""
    sources = Sources(
        pmb or _pmb(),
        longmemeval_s or find_file(SPECS["longmemeval-s"].files),
        locomo or find_file(SPECS["locomo"].files),
        service,
        mnemonic or _checkout("mnemonic"),
        acervo or _checkout("acervo"),
        nano_brain or _checkout("nano-brain"),
    )
    jobs = [job for job in plan(sources, out) if not only or any(job.name.startswith(prefix) for prefix in only)]
    have = {"docker": _docker(), "url": service is not None}
    have |= {need: _has(need) for job in jobs for need in job.needs if need not in have}
    if dry_run:
        for job in jobs:
            why = needs_missing(job, have)
            out_console.print(f"{job.name}: {job.title}" + (f" (skipped: {why})" if why else ""), highlight=False)
        return 0
    folders, skipped = make_board(jobs, out, lambda job: needs_missing(job, have), _run_job, say)
    reader = Reader.of(os.environ)
    reports = [path for folder in folders for path in compare_reports.default_reports(folder, reader)]
    if reports:
        write_leaderboard(compare_reports.load_reports(reports, reader), out)
    for line in skipped:
        say(f"not on the board: {line}")
    return 0


def _docker() -> bool:
    """Whether a Docker engine answers (False without the containers extra, which talks to it)."""
    try:
        from harness.containers.engine import docker_available
    except ImportError:
        return False
    return docker_available() is None


def _has(need: str) -> bool:
    kind, _, what = need.partition(":")
    if kind == "package":
        return importlib.util.find_spec(what) is not None
    return kind == "file" and Path(what).exists()
