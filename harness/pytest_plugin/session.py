"""The harness under pytest, set up by the plugin's entry when it is first asked for: the selected
backends, modes and systems, one process's connections, kinds, group runs and baselines, and (in
the controller) the baseline gate. Its parts: `items.py` (what is collected, how an item runs and
when it fails), `servers.py` (one container per server backend for the whole run, shared by the
xdist workers), `gate.py` (`--harness-check-baseline` and HARNESS_FREEZE=1 over every kind's items)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from harness.backends import registry
from harness.baselines import DEFAULT_TOLERANCE, BaselineStore, history
from harness.errors import HarnessError
from harness.evaluation.crew import MAX_CONCURRENCY
from harness.evaluation.kinds import builtin_suites
from harness.evaluation.matrix import Axes, matrix_axes
from harness.evaluation.runner import not_applicable, system_modes
from harness.pipeline import Mode
from harness.pytest_plugin import gate
from harness.pytest_plugin import run as names
from harness.pytest_plugin.items import Baselines, GroupRuns, ItemParam, Kinds, judge
from harness.pytest_plugin.run import Run, baseline_action
from harness.pytest_plugin.servers import Connections, SharedServers
from harness.pytest_plugin.systems import Systems
from harness.systems.protocol import REFERENCE


class HarnessSession:
    """Per process: connections, the kinds, their group runs, the baselines items are held to and
    the systems under test; in the controller, the baseline gate when the session freezes or checks."""

    def __init__(self, config: pytest.Config, run: Run, controller: bool) -> None:
        self.config = config
        for name in registry.names():
            config.addinivalue_line("markers", f"{name}: runs on the {name} backend")
        self.modes = _selected_modes(config)
        store = BaselineStore(config.getoption(names.BASELINE_DIR))
        axes = _selected_axes(config)
        self.connections = Connections(axes.backends, SharedServers(run))
        self.kinds = Kinds(self.modes)
        self.runs = GroupRuns(_concurrency(config))
        self.baselines = Baselines(store)
        self.systems = Systems([s.name for s in axes.systems])
        if controller:
            self._register_gate(store)

    def _register_gate(self, store: BaselineStore) -> None:
        """When the session freezes or checks: the gate, writing its history into the session's
        basetemp (never into the checkout)."""
        action = baseline_action(self.config)
        if action is None:
            return
        history_file = self.config._tmp_path_factory.getbasetemp() / history.FILE_NAME  # type: ignore[attr-defined]
        tolerance = self.config.getoption(names.BASELINE_TOLERANCE)
        tolerance = DEFAULT_TOLERANCE if tolerance is None else tolerance
        self.config.pluginmanager.register(gate.BaselineGate(store, action, tolerance, self.modes, history_file))

    def parametrize(self, metafunc: pytest.Metafunc) -> None:
        """`harness_item`: one item per selected suite's item, system, backend and mode."""
        specs = list(dict.fromkeys(self.config.getoption(names.SUITE) or builtin_suites()))
        params = []
        try:
            for param in self.kinds.params(specs, self.connections.selected, self.systems.names):
                self.config.addinivalue_line("markers", f"{param.kind}: items of {param.kind} suites")
                marks = [getattr(pytest.mark, param.backend), getattr(pytest.mark, param.kind)]
                params.append(pytest.param(param, id=param.id, marks=marks))
        except pytest.UsageError as exc:  # a suite that cannot be loaded: its one line, not a collection traceback
            raise pytest.fail.Exception(str(exc), pytrace=False) from None
        metafunc.parametrize("harness_item", params)

    def check(self, request: pytest.FixtureRequest) -> Callable[[ItemParam], None]:
        """What the `harness_check` fixture gives a test (see its docstring)."""
        named = {Mode(m) for m in self.config.getoption(names.MODE) or ()}
        recording = baseline_action(self.config) is not None

        def check(param: ItemParam) -> None:
            backend = self.connections.backend(param.backend)
            kind = self.kinds[param.spec]
            system = self.systems.bound(param, backend, self.connections, self.runs)
            _, unsupported = system_modes([param.mode], backend.info(), system)
            if param.mode in unsupported:
                reason = unsupported[param.mode]
                if system.reference:
                    pytest.skip(f"{param.backend}: {param.mode.value} mode unsupported: {reason}")
                pytest.skip(f"{param.system}: not applicable: {reason}")
            if skipped := not_applicable(kind, system):  # type: ignore[arg-type]
                pytest.skip(f"{param.system}: not applicable: {skipped}")
            results = self.runs.results(param, kind, backend, system)
            if recording:
                gate.record(request.node, param, backend.info(), results)
            # the reference system is held to its kinds' asserted modes; another system to the modes `--harness-mode` names
            asserted = named or (kind.asserted if param.system == REFERENCE else frozenset())
            judge(kind, param, results, param.mode in asserted, self.baselines)

        return check

    def close(self) -> None:
        self.connections.close()


def _selected_axes(config: pytest.Config) -> Axes:
    """The session's backends and systems, checked as `harness run` checks its own."""
    backends = config.getoption(names.BACKEND) or registry.default_run()
    try:
        return matrix_axes(backends, config.getoption(names.SYSTEM) or [REFERENCE])
    except HarnessError as exc:
        raise pytest.UsageError(f"harness: {exc}") from None


def _concurrency(config: pytest.Config) -> int:
    """`--harness-concurrency`, checked as `harness run --concurrency` is (1 when not given)."""
    asked = config.getoption(names.CONCURRENCY)
    if asked is None:
        return 1
    if not 1 <= asked <= MAX_CONCURRENCY:
        raise pytest.UsageError(f"--harness-concurrency {asked}: expected 1 to {MAX_CONCURRENCY}")
    return int(asked)


def _selected_modes(config: pytest.Config) -> list[Mode]:
    return [Mode(m) for m in dict.fromkeys(config.getoption(names.MODE) or [Mode.BM25.value])]
