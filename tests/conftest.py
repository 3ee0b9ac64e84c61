"""Hypothesis profiles (CI runs are reproducible and never spend minutes shrinking a failure),
the backends as markers, `any_backend`: each registered backend in turn, for tests that must give the same answer on all,
`harness_main` (the CLI in process), reports' pages drawn in process, and pytest's own `pytester`
(tests of the plugin run pytest in process)."""

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from harness.backends import registry
from harness.backends.base import Backend

pytest_plugins = ["pytester"]

# The suite starts hundreds of Python processes (its workers, the console script, each report's page
# child). Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE, as on CI's
# machines), every one of them would compile the harness and pytest's rewritten test modules from
# source again (about 0.2 s of CPU each); under this suite they compile them once.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`pytest -n auto` hands out work as workers ask for it (xdist's work stealing) rather than
    in fixed shares: this suite's tests run from milliseconds to a minute, and fixed shares left
    one worker idle for the last minute while the other finished its share."""
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log) if config.getvalue("dist") == "load" else None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers() -> int:
    """`pytest -n auto` starts two workers per core, not one: much of this suite waits on its server
    containers and on the child processes it starts, and one worker per core left the cores idle
    meanwhile (tests/faults and tests/containers on 2 cores: 563 s with 2 workers, 403 s with 4)."""
    return 2 * len(os.sched_getaffinity(0))


def pytest_configure(config: pytest.Config) -> None:
    """This repository's tests mark themselves with backends (the plugin registers them only when
    its items run), so each backend is a marker from the start: `-m redis` and --strict-markers."""
    for name in registry.names():
        config.addinivalue_line("markers", f"{name}: runs on the {name} backend")


settings.register_profile(
    "ci",
    derandomize=True,
    print_blob=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(
    scope="module",
    params=[pytest.param(d.name, id=d.name, marks=getattr(pytest.mark, d.name)) for d in registry.DESCRIPTORS],
)
def any_backend(request: pytest.FixtureRequest, server_url) -> Iterator[Backend]:
    """Each registered backend in turn (a server backend only when selected with `--harness-backend`)."""
    name = request.param
    backend = registry.connect(name, server_url(name) if registry.descriptor(name).server else None)
    yield backend
    backend.close()


Main = Callable[..., subprocess.CompletedProcess[str]]
"""What `harness_main` gives a test."""


def main_exit_code(*args: str, **env: str) -> int:
    """`harness ARGS` through `harness.cli.main` in this process, with `env` set while it runs; its
    exit code. What `harness_main` wraps; a fixture of wider scope than a test calls it directly."""
    from harness.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(warnings, "showwarning", warnings.showwarning)  # main sets its own
        for name, value in {"HF_HUB_OFFLINE": "1", **env}.items():
            patch.setenv(name, value)
        patch.setattr(sys, "argv", ["harness", *args])
        with pytest.raises(SystemExit) as exited:
            main()
    return int(exited.value.code or 0)


@pytest.fixture
def harness_main(capsys: pytest.CaptureFixture[str]) -> Main:
    """`harness_main(*args, cwd=DIR, **env)`: `harness ARGS` through `harness.cli.main` in this
    process, in `cwd` with `env` set; its exit code and output as a subprocess's would be. For tests
    of what a command does, not of the process (signals, the console script, packaging): an
    interpreter start and the CLI's imports cost more than most of these runs."""

    def run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()  # only this command's output
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(cwd)
            code = main_exit_code(*args, **env)
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["harness", *args], code, out, err)

    return run


@pytest.fixture(autouse=True)
def pages_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run in a test's own process draws its report's page there, by what the page's child runs
    (`page_or_note` on the report's JSON text): the same page, without a child Python's start and
    imports for every report (about 0.7 s of CPU each, 250 reports a suite). The child itself is
    tested where it is the point (`tests/reports/test_page_process.py` calls it directly), and every
    run of the console script in a subprocess still draws its page in a child."""
    from harness.evaluation import runner
    from harness.reports import envelope
    from harness.reports.html.page import page_or_note

    def draw(report_json: str) -> str:
        return page_or_note(json.loads(report_json))

    @contextmanager
    def page_process() -> Iterator[Callable[[str], str]]:
        yield draw

    monkeypatch.setattr(runner, "page_process", page_process)
    monkeypatch.setattr(envelope, "page_apart", draw)
