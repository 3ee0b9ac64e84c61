"""pytest plugin: every item of every selected suite (a belief case, lifecycle scenario,
conversation turn, code task) becomes one test item, per backend and mode.

Items are named `<kind>-<backend>-<mode>-<item id>` and marked with their backend and kind, so
`pytest -m lifecycle`, `pytest --backend redis -k alias` and `pytest -n auto` all work. Its parts:
`items.py` (what is collected, how an item runs and when it fails), `servers.py` (one container per
server backend for the whole run, shared by the xdist workers), `gate.py` (`--check-baseline` and
HARNESS_FREEZE=1 over every kind's items). This module only wires them into pytest's hooks.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.backends import registry
from harness.baselines import DEFAULT_TOLERANCE, BaselineStore, history
from harness.errors import HarnessError
from harness.evaluation.kinds import builtin_suites
from harness.evaluation.runner import not_applicable, system_modes
from harness.pipeline import Mode
from harness.pytest_plugin import gate
from harness.pytest_plugin.items import Baselines, GroupRuns, ItemParam, Kinds, judge
from harness.pytest_plugin.servers import Connections, Run, SharedServers
from harness.pytest_plugin.systems import Systems
from harness.systems.protocol import REFERENCE
from harness.systems.registry import resolve

__all__ = ["ItemParam"]

RUN_INPUT = "harness_run"
"""The `workerinput` key under which the controller hands its `Run` to each xdist worker."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "memory retrieval harness")
    group.addoption(
        "--backend",
        action="append",
        default=None,
        help=f"backend(s): {', '.join(registry.names())} (default: {', '.join(registry.default_run())})",
    )
    group.addoption(
        "--mode",
        action="append",
        default=None,
        help="mode(s) to run and assert: bm25, vector, hybrid (default: bm25, asserted where it is the system under test)",
    )
    group.addoption(
        "--suite",
        action="append",
        default=None,
        help="suite(s), as `harness run --suite` takes them (default: the built-in suite of every kind with items)",
    )
    group.addoption(
        "--system",
        action="append",
        default=None,
        help="memory system(s) under test: reference, an installed one, or http:URL (default: reference)",
    )
    group.addoption(
        "--check-baseline",
        action="store_true",
        help=f"check every suite x backend x mode that ran against its baseline; {gate.FREEZE_ENV}=1 freezes",
    )
    group.addoption("--baseline-dir", type=Path, default=None, help="baselines folder (default: cases/baselines)")
    group.addoption(
        "--baseline-tolerance",
        type=float,
        default=DEFAULT_TOLERANCE,
        help=f"how far a score may fall below its baseline (default {DEFAULT_TOLERANCE})",
    )


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


@dataclass
class _State:
    """Per process: connections, the kinds, their group runs and the baselines items are held to."""

    connections: Connections
    kinds: Kinds
    runs: GroupRuns
    baselines: Baselines
    systems: Systems


_STATE = pytest.StashKey[_State]()


@pytest.hookimpl(trylast=True)  # after the tmpdir plugin has set up the basetemp
def pytest_configure(config: pytest.Config) -> None:
    for name in registry.names():
        config.addinivalue_line("markers", f"{name}: runs on the {name} backend")
    store = BaselineStore(config.getoption("--baseline-dir"))
    if _is_worker(config):
        given = config.workerinput[RUN_INPUT]  # type: ignore[attr-defined]  # set by xdist on workers
        run = Run(given["run_id"], given["owner"], Path(given["records"]))
    else:
        # the controller's basetemp: xdist gives each worker a folder below it, so all processes see it
        basetemp = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
        run = Run(f"pytest-{uuid.uuid4().hex[:12]}", os.getpid(), basetemp / "harness-servers")
        _register_gate(config, store, basetemp)
    config.stash[_STATE] = _State(
        Connections(_selected_backends(config), SharedServers(run)),
        Kinds(_selected_modes(config)),
        GroupRuns(),
        Baselines(store),
        Systems(_selected_systems(config)),
    )


def _register_gate(config: pytest.Config, store: BaselineStore, basetemp: Path) -> None:
    """In the controller, when the session freezes or checks: the gate, writing its history into
    the session's basetemp (never into the checkout)."""
    action = gate.baseline_action(config)
    if action is None:
        return
    history_file = basetemp / history.FILE_NAME
    tolerance = config.getoption("--baseline-tolerance")
    config.pluginmanager.register(gate.BaselineGate(store, action, tolerance, _selected_modes(config), history_file))


@pytest.hookimpl(optionalhook=True)  # an xdist hook, called in the controller for each worker
def pytest_configure_node(node: Any) -> None:  # xdist's WorkerController: xdist is an optional dependency
    run = node.config.stash[_STATE].connections.servers.run
    node.workerinput[RUN_INPUT] = {"run_id": run.run_id, "owner": run.owner, "records": str(run.records)}


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    state.connections.close()
    if not _is_worker(config):
        state.connections.servers.remove()


def _selected_backends(config: pytest.Config) -> list[str]:
    return [registry.check_backend(b) for b in dict.fromkeys(config.getoption("--backend") or registry.default_run())]


def _selected_systems(config: pytest.Config) -> list[str]:
    names = list(dict.fromkeys(config.getoption("--system") or [REFERENCE]))
    try:
        return [resolve(name).name for name in names]
    except HarnessError as exc:
        raise pytest.UsageError(f"harness: --system: {exc}") from None


def _selected_modes(config: pytest.Config) -> list[Mode]:
    return [Mode(m) for m in dict.fromkeys(config.getoption("--mode") or [Mode.BM25.value])]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "harness_item" not in metafunc.fixturenames:
        return
    config = metafunc.config
    state = config.stash[_STATE]
    specs = list(dict.fromkeys(config.getoption("--suite") or builtin_suites()))
    params = []
    for param in state.kinds.params(specs, state.connections.selected, state.systems.names):
        config.addinivalue_line("markers", f"{param.kind}: items of {param.kind} suites")
        marks = [getattr(pytest.mark, param.backend), getattr(pytest.mark, param.kind)]
        params.append(pytest.param(param, id=param.id, marks=marks))
    metafunc.parametrize("harness_item", params)


@pytest.fixture
def harness_check(request: pytest.FixtureRequest) -> Callable[[ItemParam], None]:
    """`harness_check(item)`: run the item's group (once per process) and pass, fail or xfail it
    with the judge's reasons; its results go to the baseline gate when one runs."""
    state = request.config.stash[_STATE]
    named = {Mode(m) for m in request.config.getoption("--mode") or ()}
    recording = gate.baseline_action(request.config) is not None

    def check(param: ItemParam) -> None:
        backend = state.connections.backend(param.backend)
        kind = state.kinds[param.spec]
        system = state.systems.bound(param, backend, state.connections, state.runs)
        _, unsupported = system_modes([param.mode], backend.info(), system)
        if param.mode in unsupported:
            reason = unsupported[param.mode]
            if system is None:
                pytest.skip(f"{param.backend}: {param.mode.value} mode unsupported: {reason}")
            pytest.skip(f"{param.system}: not applicable: {reason}")
        if system is not None and (skipped := not_applicable(kind, system)):  # type: ignore[arg-type]
            pytest.skip(f"{param.system}: not applicable: {skipped}")
        results = state.runs.results(param, kind, backend, system)
        if recording:
            gate.record(request.node, param, backend.info(), results)
        # the reference system is held to its kinds' asserted modes; another system to the modes `--mode` names
        asserted = named or (kind.asserted if param.system == REFERENCE else frozenset())
        judge(kind, param, results, param.mode in asserted, state.baselines)

    return check


@pytest.fixture(scope="session")
def server_url(pytestconfig: pytest.Config) -> Callable[[str], str]:
    """`server_url(name)`: the URL of the run's shared server of that backend."""
    return pytestconfig.stash[_STATE].connections.url
