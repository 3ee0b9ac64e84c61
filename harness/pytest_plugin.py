"""pytest plugin: every suite case becomes one test item, per backend and mode.

Items are named `<backend>-<mode>-<case id>` and marked with their backend, so
`pytest -m postgres`, `pytest --backend redis -k alias` and `pytest -n auto` all work.

Server backends: ONE container per backend for the whole run, shared by the xdist workers. The
first worker that needs it starts it under a file lock and records its URL; the others read the
record. Workers isolate their data by namespace (schema, key prefix, collection), so they never
collide. The controller process owns the containers (they carry its pid) and removes them when
the run ends; a crashed run's containers are removed by the next start. Without a Docker engine
the server items skip with the reason, unless HARNESS_REQUIRE_DOCKER=1 makes that a failure.

Baselines: with `--check-baseline` the items' results (carried to the controller in each test
report's user properties, so xdist works) are checked against the committed baselines when the
session ends, and a regression fails the session; HARNESS_FREEZE=1 freezes them instead. The
history of either goes into the session's basetemp, never into the checkout.

The controller hands its run id, pid and records folder to the workers through xdist's
`workerinput`, never through the environment. The records (server URLs, passwords included) live
in a 0700 folder under the controller's basetemp, one 0600 file per backend.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.baselines import DEFAULT_TOLERANCE, BaselineKey, BaselineStore, history, run_gate
from harness.embeddings.model import DEFAULT_MODEL
from harness.errors import BackendUnavailable, HarnessError
from harness.evaluation.embedders import suite_embedder
from harness.evaluation.kinds.beliefs import SuiteRunner
from harness.evaluation.results import CaseResult
from harness.evaluation.runner import runnable_modes
from harness.models import SessionCase, StaticCase, Suite
from harness.models.scoresheet import ScoreSheet
from harness.pipeline import Mode, PipelineSettings
from harness.reports.run_report import baseline_settings
from harness.reports.scores import suite_scores
from harness.suites import BUILTIN, load_suite

RUN_INPUT = "harness_run"
"""The `workerinput` key under which the controller hands its `_Run` to each xdist worker."""
REQUIRE_DOCKER_ENV = "HARNESS_REQUIRE_DOCKER"
FREEZE_ENV = "HARNESS_FREEZE"
RESULT_PROPERTY = "harness_result"
"""The user property a case item's results travel under to the controller's baseline gate."""


@dataclass(frozen=True)
class CaseParam:
    backend: str
    mode: Mode
    suite: str
    """The suite as the user gave it (`--suite`), so any process can load it again; not its display name."""
    case: StaticCase | SessionCase
    position: int


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "memory retrieval harness")
    group.addoption(
        "--backend",
        action="append",
        default=None,
        help=f"backend(s): {', '.join(registry.names())} (default: {', '.join(registry.default_run())})",
    )
    group.addoption(
        "--mode", action="append", default=None, help="mode(s) to assert: bm25, vector, hybrid (default: bm25)"
    )
    group.addoption(
        "--suite", action="append", default=None, help="suite(s): builtin, tenure:DIR, a folder (default: builtin)"
    )
    group.addoption(
        "--check-baseline",
        action="store_true",
        help=f"check every suite x backend x mode that ran against its baseline; {FREEZE_ENV}=1 freezes instead",
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


@dataclass(frozen=True)
class _Run:
    """What every process of one pytest run shares: the run id, the owning pid, the records folder."""

    run_id: str
    owner: int
    records: Path


@pytest.hookimpl(trylast=True)  # after the tmpdir plugin has set up the basetemp
def pytest_configure(config: pytest.Config) -> None:
    for name in registry.names():
        config.addinivalue_line("markers", f"{name}: runs on the {name} backend")
    if _is_worker(config):
        given = config.workerinput[RUN_INPUT]  # type: ignore[attr-defined]  # set by xdist on workers
        run = _Run(given["run_id"], given["owner"], Path(given["records"]))
    else:
        # the controller's basetemp: xdist gives each worker a folder below it, so all processes see it
        basetemp = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
        run = _Run(f"pytest-{uuid.uuid4().hex[:12]}", os.getpid(), basetemp / "harness-servers")
        _register_baseline_gate(config, basetemp)
    config.stash[_STATE] = _State(_selected_backends(config), SharedServers(run))


def _register_baseline_gate(config: pytest.Config, basetemp: Path) -> None:
    """In the controller, when the session freezes or checks: the gate, writing its history into
    the session's basetemp (never into the checkout)."""
    action = _baseline_action(config)
    if action is None:
        return
    store = BaselineStore(config.getoption("--baseline-dir"))
    model = DEFAULT_MODEL if any(m.needs_vectors for m in _selected_modes(config)) else None
    gate = BaselineGate(store, action, config.getoption("--baseline-tolerance"), model, basetemp / history.FILE_NAME)
    config.pluginmanager.register(gate)


def _baseline_action(config: pytest.Config) -> str | None:
    """`freeze`, `check` or None: what the session does with baselines when it ends."""
    freeze_run = os.environ.get(FREEZE_ENV) == "1"
    if freeze_run and config.getoption("--check-baseline"):
        raise pytest.UsageError(f"{FREEZE_ENV}=1 freezes baselines and --check-baseline checks them: pick one")
    return "freeze" if freeze_run else "check" if config.getoption("--check-baseline") else None


@pytest.hookimpl(optionalhook=True)  # an xdist hook, called in the controller for each worker
def pytest_configure_node(node: Any) -> None:  # xdist's WorkerController: xdist is an optional dependency
    run = node.config.stash[_STATE].servers.run
    node.workerinput[RUN_INPUT] = {"run_id": run.run_id, "owner": run.owner, "records": str(run.records)}


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    state.close()
    if not _is_worker(config) and state.servers.records():
        from harness.containers import ContainerError, remove_run

        try:
            remove_run(state.servers.run.run_id)
        except ContainerError:
            pass  # the engine went away; the next start removes what is left
        state.servers.forget()


def _selected_backends(config: pytest.Config) -> list[str]:
    return [registry.check_backend(b) for b in dict.fromkeys(config.getoption("--backend") or registry.default_run())]


def _selected_modes(config: pytest.Config) -> list[Mode]:
    return [Mode(m) for m in dict.fromkeys(config.getoption("--mode") or [Mode.BM25.value])]


def _selected(config: pytest.Config) -> tuple[list[str], list[Mode], dict[str, Suite]]:
    """Backends, modes, and each selected suite by the spec that loads it."""
    suites = {spec: load_suite(spec) for spec in dict.fromkeys(config.getoption("--suite") or [BUILTIN])}
    return _selected_backends(config), _selected_modes(config), suites


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for fixture, attribute in (("static_case", "static_cases"), ("session_case", "session_cases")):
        if fixture not in metafunc.fixturenames:
            continue
        backends, modes, suites = _selected(metafunc.config)
        params = [
            pytest.param(
                CaseParam(backend, mode, spec, case, position),
                id=f"{backend}-{mode.value}-{case.id}",
                marks=getattr(pytest.mark, backend),
            )
            for backend in backends
            for mode in modes
            for spec, suite in suites.items()
            for position, case in enumerate(getattr(suite, attribute))
        ]
        metafunc.parametrize(fixture, params)


class SharedServers:
    """Server URLs for this run: started once across workers, recorded in a shared folder.

    The records hold passwords: the folder is 0700 and each file 0600, whatever the umask."""

    def __init__(self, run: _Run) -> None:
        self.run = run

    def _record(self, backend: str) -> Path:
        return self.run.records / f"{backend}.json"

    def url(self, backend: str) -> str:
        from filelock import FileLock

        from harness.backends.provision import start_server

        self.run.records.mkdir(mode=0o700, exist_ok=True)
        record = self._record(backend)
        with FileLock(f"{record}.lock", mode=0o600):
            if not record.exists():
                try:
                    url, _ = start_server(backend, self.run.run_id, owner_pid=self.run.owner)
                    _write_private(record, {"url": url})
                except BackendUnavailable as exc:
                    _write_private(record, {"error": str(exc)})
            data = json.loads(record.read_text())
        if "error" in data:
            raise BackendUnavailable(data["error"])
        return data["url"]

    def records(self) -> list[Path]:
        """What any process of this run started (or tried to), as recorded in the shared folder."""
        return sorted(self.run.records.glob("*.json"))

    def forget(self) -> None:
        for path in self.run.records.glob("*"):
            path.unlink(missing_ok=True)


def _write_private(path: Path, data: dict[str, str]) -> None:
    """Write `data` as JSON readable by this user alone (0600 from creation, never widened)."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
        json.dump(data, out)


class _State:
    """Per process: connected backends and one runner per (backend, suite spec)."""

    def __init__(self, selected: list[str], servers: SharedServers) -> None:
        self.selected = selected
        self.servers = servers
        self._backends: dict[str, Backend] = {}
        self._suites: dict[str, Suite] = {}
        self._runners: dict[tuple[str, str], SuiteRunner] = {}

    def url(self, name: str) -> str:
        """The run's shared server of `name`; skips (or fails, under HARNESS_REQUIRE_DOCKER=1) without Docker."""
        if name not in self.selected:
            pytest.skip(f"{name} not selected (run with --backend {name})")
        from harness.containers import docker_available

        reason = docker_available()
        if reason is not None:
            if os.environ.get(REQUIRE_DOCKER_ENV) == "1":
                pytest.fail(f"{name}: {reason} (HARNESS_REQUIRE_DOCKER=1)", pytrace=False)
            pytest.skip(f"{name}: {reason}")
        try:
            return self.servers.url(name)
        except BackendUnavailable as exc:
            pytest.fail(f"{name}: {exc}", pytrace=False)

    def backend(self, name: str) -> Backend:
        if name not in self._backends:
            server = registry.descriptor(name).server is not None
            self._backends[name] = registry.connect(name, self.url(name) if server else None)
        return self._backends[name]

    def runner(self, backend: str, suite_spec: str, needs_vectors: bool) -> SuiteRunner:
        key = (backend, suite_spec)
        if key not in self._runners:
            if suite_spec not in self._suites:
                self._suites[suite_spec] = load_suite(suite_spec)
            suite = self._suites[suite_spec]
            embedder = suite_embedder(DEFAULT_MODEL) if needs_vectors else None
            self._runners[key] = SuiteRunner(self.backend(backend), suite, embedder=embedder)
        return self._runners[key]

    def close(self) -> None:
        for runner in self._runners.values():
            runner.close()
        for backend in self._backends.values():
            try:
                backend.close()
            except Exception:  # noqa: BLE001 - closing a dead server must not fail the run
                pass


_STATE = pytest.StashKey[_State]()


@pytest.fixture
def harness_runner(request: pytest.FixtureRequest):
    """`harness_runner(param)`: the runner for a CaseParam, its index loaded once per process."""
    state = request.config.stash[_STATE]
    needs_vectors = any(m.needs_vectors for m in _selected_modes(request.config))

    def runner(param: CaseParam) -> SuiteRunner:
        _, unsupported = runnable_modes([param.mode], state.backend(param.backend).info())
        if param.mode in unsupported:
            pytest.skip(f"{param.backend}: {param.mode.value} mode unsupported: {unsupported[param.mode]}")
        return state.runner(param.backend, param.suite, needs_vectors)

    return runner


@pytest.fixture
def harness_record(request: pytest.FixtureRequest):
    """`harness_record(param, results)`: hand a case item's results to the baseline gate, when
    the session freezes or checks baselines (a no-op otherwise)."""
    recording = _baseline_action(request.config) is not None

    def record(param: CaseParam, results: list[CaseResult]) -> None:
        if recording:
            for result in results:
                request.node.user_properties.append(
                    (RESULT_PROPERTY, {"suite": param.suite, "result": result.to_json()})
                )

    return record


class BaselineGate:
    """In the controller: collects the case items' results from their reports, then freezes or
    checks one baseline per suite x backend x mode when the session ends. Either needs every case
    of the suite to have run in that backend and mode (a -k, -x or skip would freeze or check a
    part as if it were the whole)."""

    def __init__(
        self, store: BaselineStore, action: str, tolerance: float, embedding_model: str | None, history_file: Path
    ) -> None:
        self.store = store
        self.action = action
        self.tolerance = tolerance
        self.embedding_model = embedding_model
        self.history_file = history_file
        self.results: dict[str, list[CaseResult]] = {}
        self.lines: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == RESULT_PROPERTY:
                self.results.setdefault(value["suite"], []).append(CaseResult(**value["result"]))

    @pytest.hookimpl(tryfirst=True)  # before the exit status is final
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            return
        try:
            gate = run_gate(
                self.store,
                self._sheets(),
                baseline_settings(PipelineSettings(), None, self.embedding_model),
                freeze_run=self.action == "freeze",
                history_file=self.history_file,
                tolerance=self.tolerance,
            )
        except HarnessError as exc:
            self.lines = [f"harness: {exc}"]
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        self.lines = [*gate.lines, f"baseline history: {self.history_file}"]
        if gate.failed and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _sheets(self) -> dict[BaselineKey, ScoreSheet]:
        if not self.results:
            raise HarnessError(f"baseline {self.action}: no suite case ran in this session")
        sheets = {}
        for spec, rows in self.results.items():
            suite = load_suite(spec)
            whole = len(suite.static_cases) + sum(len(c.turns) for c in suite.session_cases)
            by_backend: dict[str, list[CaseResult]] = {}
            for row in rows:
                by_backend.setdefault(row.backend, []).append(row)
            for backend, backend_rows in by_backend.items():
                for mode, sheet in suite_scores(backend_rows).items():
                    ran = sum(row.mode == mode for row in backend_rows)
                    if ran != whole:
                        raise HarnessError(
                            f"baseline {self.action} of {suite.name} on {backend} in {mode} needs every case: "
                            f"{ran} of {whole} ran (-k, -x or a skip left some out)"
                        )
                    sheets[BaselineKey(suite.name, backend, mode)] = sheet
        return sheets

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.lines:
            terminalreporter.write_sep("=", f"baselines ({self.action})")
            for line in self.lines:
                terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def server_url(pytestconfig: pytest.Config):
    """`server_url(name)`: the URL of the run's shared server of that backend."""
    return pytestconfig.stash[_STATE].url
