"""pytest plugin: every item of every selected suite (a belief case, lifecycle scenario,
conversation turn, code task) becomes one test item, per backend and mode: of a test that requests
`harness_item` (as tests/test_suite_cases.py), else of the plugin's own test (`contributed.py`).

This module is the `pytest11` entry, loaded by every pytest session of an environment that has
the harness installed, a memory-system author's own repository included: it imports pytest and
the standard library only, and its options all start `--harness-`. The harness itself
(`session.py`, and through it the kinds, the pipeline and the backends) is imported when a
`--harness-*` option is given or `HARNESS_FREEZE=1` is set (at start-up, so a wrong option fails at
once and the baseline gate sees every item), or when a test requests `harness_item`,
`harness_check` or `server_url`. A `--harness-*` option asks for the harness's items: those of each
`--harness-suite`, else the built-in suite of every kind; where no collected test uses the harness
(requests one of those fixtures), the plugin adds its own test, and an option given while no item of
the harness's is left to run is a warning. Without an option, a `harness_item` test gets what the
ini `harness_collect` says (`builtin`: the built-in suite of every kind; `none`, the default: no
item, the test is skipped saying so).
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.pytest_plugin import run as names
from harness.pytest_plugin.run import Run, baseline_action, terminate_as_interrupt

if TYPE_CHECKING:
    from harness.pytest_plugin.items import ItemParam
    from harness.pytest_plugin.session import HarnessSession

RUN_INPUT = "harness_run"
"""The `workerinput` key under which the controller hands its `Run` to each xdist worker."""
COLLECT_INI = "harness_collect"
COLLECT_CHOICES = ("none", "builtin")
NO_SUITE = (
    f"harness: no suite selected: give a --harness-* option (--harness-suite SPEC, --harness-system NAME, ...), "
    f"or set {COLLECT_INI} = builtin in the ini"
)
USES_HARNESS = ("harness_item", "harness_check", "server_url")
"""The plugin's fixtures: a test requesting one is the harness's."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "memory retrieval harness (its items, given any --harness-* option)")
    group.addoption(
        "--harness-backend",
        dest=names.BACKEND,
        action="append",
        default=None,
        help="backend(s) items run on (`harness backends` lists them; default: those of its default run)",
    )
    group.addoption(
        "--harness-mode",
        dest=names.MODE,
        action="append",
        default=None,
        help="mode(s) to run and assert: bm25, vector, hybrid (default: bm25, asserted where it is the system under test)",
    )
    group.addoption(
        "--harness-suite",
        dest=names.SUITE,
        action="append",
        default=None,
        help="suite(s), as `harness run --suite` takes them (default: the built-in suite of every kind)",
    )
    group.addoption(
        "--harness-system",
        dest=names.SYSTEM,
        action="append",
        default=None,
        help="memory system(s) under test: reference, an installed one, or http:URL (default: reference)",
    )
    group.addoption(
        "--harness-check-baseline",
        dest=names.CHECK_BASELINE,
        action="store_true",
        help=f"check every suite x backend x mode that ran against its baseline; {names.FREEZE_ENV}=1 freezes",
    )
    group.addoption(
        "--harness-baseline-dir",
        dest=names.BASELINE_DIR,
        type=Path,
        default=None,
        help="baselines folder (default: cases/baselines)",
    )
    group.addoption(
        "--harness-baseline-tolerance",
        dest=names.BASELINE_TOLERANCE,
        type=float,
        default=None,
        help="how far a score may fall below its baseline (default: as `harness run --baseline-tolerance`)",
    )
    group.addoption(
        "--harness-concurrency",
        dest=names.CONCURRENCY,
        type=int,
        default=None,
        help="up to N of an item group's tasks through the system at once, as `harness run --concurrency` (default 1)",
    )
    parser.addini(
        COLLECT_INI,
        f"suites a harness_item test gets without a --harness-* option: {' or '.join(COLLECT_CHOICES)} "
        "(builtin: the built-in suite of every kind)",
        default="none",
    )


@dataclass
class _Plugin:
    """Per process: the run its processes share (made when first needed) and the harness session
    (None until the harness is asked for)."""

    run: Run | None = None
    session: HarnessSession | None = None


_PLUGIN = pytest.StashKey[_Plugin]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)  # after the tmpdir plugin has set up the basetemp
def pytest_configure(config: pytest.Config) -> None:
    if config.getini(COLLECT_INI) not in COLLECT_CHOICES:
        raise pytest.UsageError(f"{COLLECT_INI} = {config.getini(COLLECT_INI)}: one of {', '.join(COLLECT_CHOICES)}")
    config.stash[_PLUGIN] = _Plugin()
    if baseline_action(config) is not None or names.given(config):
        _session(config)


def _run(config: pytest.Config) -> Run:
    """The run: handed over by the controller in a worker; in the controller, made under its basetemp
    (xdist gives each worker a folder below it, so every process sees the records), and from then on
    SIGTERM tears it down as Ctrl-C does."""
    plugin = config.stash[_PLUGIN]
    if plugin.run is None:
        if _is_worker(config):
            given = config.workerinput[RUN_INPUT]  # type: ignore[attr-defined]  # set by xdist on workers
            plugin.run = Run(given["run_id"], given["owner"], Path(given["records"]))
        else:
            basetemp = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
            plugin.run = Run(f"pytest-{uuid.uuid4().hex[:12]}", os.getpid(), basetemp / "harness-servers")
            terminate_as_interrupt()
    return plugin.run


def _session(config: pytest.Config) -> HarnessSession:
    """The harness session of this process, set up (and the harness imported) on first use."""
    plugin = config.stash[_PLUGIN]
    if plugin.session is None:
        from harness.pytest_plugin.session import HarnessSession

        plugin.session = HarnessSession(config, _run(config), controller=not _is_worker(config))
    return plugin.session


@pytest.hookimpl(optionalhook=True)  # an xdist hook, called in the controller for each worker
def pytest_configure_node(node: Any) -> None:  # xdist's WorkerController: xdist is an optional dependency
    run = _run(node.config)
    node.workerinput[RUN_INPUT] = {"run_id": run.run_id, "owner": run.owner, "records": str(run.records)}


def pytest_unconfigure(config: pytest.Config) -> None:
    plugin = config.stash.get(_PLUGIN, None)
    if plugin is None:
        return
    if plugin.session is not None:
        plugin.session.close()
    if not _is_worker(config) and plugin.run is not None and plugin.run.started():
        from harness.pytest_plugin.servers import SharedServers

        SharedServers(plugin.run).remove()  # in the controller: what any process started


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "harness_item" not in metafunc.fixturenames:
        return
    config = metafunc.config
    if not names.given(config) and config.getini(COLLECT_INI) == "none":
        metafunc.parametrize(
            "harness_item", [pytest.param(None, id="no-suite", marks=pytest.mark.skip(reason=NO_SUITE))]
        )
        return
    _session(config).parametrize(metafunc)


def _uses_harness(item: pytest.Item) -> bool:
    return any(name in USES_HARNESS for name in getattr(item, "fixturenames", ()))


@pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect choose among the items
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Given a `--harness-*` option, a session none of whose tests uses the harness (an author's
    project) gets the plugin's own item test; one that has its own (this repository's
    tests/test_suite_cases.py) is left as it is, so nothing is collected twice."""
    if names.given(config) and not any(_uses_harness(item) for item in items):
        from harness.pytest_plugin.contributed import items as contributed

        items.extend(contributed(session))


def pytest_collection_finish(session: pytest.Session) -> None:
    """A `--harness-*` option given while no item of the harness's is left to run: a warning, not
    silence (under xdist each worker's, as the controller collects nothing). Where the warning
    filters make it an error (`-W error`), a one-line usage error rather than pytest's INTERNALERROR."""
    given = names.given(session.config)
    if not given or session.testsfailed or any(_uses_harness(item) for item in session.items):
        return  # a collection error says what went wrong itself
    message = f"harness: {', '.join(given)} given, but no harness item is left to run (-k, -m or --deselect)"
    try:
        warnings.warn(pytest.PytestConfigWarning(message), stacklevel=1)
    except pytest.PytestConfigWarning:
        raise pytest.UsageError(message) from None


@pytest.fixture
def harness_check(request: pytest.FixtureRequest) -> Callable[[ItemParam], None]:
    """`harness_check(item)`: run the item's group (once per process) and pass, fail or xfail it
    with the judge's reasons; its results go to the baseline gate when one runs."""
    return _session(request.config).check(request)


@pytest.fixture(scope="session")
def server_url(pytestconfig: pytest.Config) -> Callable[[str], str]:
    """`server_url(name)`: the URL of the run's shared server of that backend."""
    return _session(pytestconfig).connections.url
