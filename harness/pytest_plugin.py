"""pytest plugin: every suite case becomes one test item, per backend and mode.

Items are named `<backend>-<mode>-<case id>` and marked with their backend, so
`pytest -m postgres`, `pytest --backend redis -k alias` and `pytest -n auto` all work. Loaded
indexes are cached per worker process and per (backend, suite), and dropped at session end.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from harness.backends.registry import BACKENDS, check_backend, open_backend
from harness.evaluation.execute import suite_embedder
from harness.evaluation.runner import SuiteRunner
from harness.models import SessionCase, StaticCase, Suite
from harness.pipeline import Mode
from harness.suites import BUILTIN, load_suite

DEFAULT_MODEL = "all-MiniLM-L6-v2"


@dataclass(frozen=True)
class CaseParam:
    backend: str
    mode: Mode
    suite: str
    case: StaticCase | SessionCase
    position: int


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "memory retrieval harness")
    group.addoption("--backend", action="append", default=None, help=f"backend(s): {', '.join(BACKENDS)} (default: embedded)")
    group.addoption("--mode", action="append", default=None, help="mode(s) to assert: bm25, vector, hybrid (default: bm25)")
    group.addoption("--suite", action="append", default=None, help="suite(s): builtin, tenure:DIR, a folder (default: builtin)")


def pytest_configure(config: pytest.Config) -> None:
    for name in BACKENDS:
        config.addinivalue_line("markers", f"{name}: cases run on the {name} backend")
    config.stash[_RUNNERS] = _Runners()


def _selected(config: pytest.Config) -> tuple[list[str], list[Mode], list[Suite]]:
    backends = [check_backend(b) for b in dict.fromkeys(config.getoption("--backend") or ["embedded"])]
    modes = [Mode(m) for m in dict.fromkeys(config.getoption("--mode") or [Mode.BM25.value])]
    suites = [load_suite(s) for s in dict.fromkeys(config.getoption("--suite") or [BUILTIN])]
    return backends, modes, suites


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for fixture, attribute in (("static_case", "static_cases"), ("session_case", "session_cases")):
        if fixture not in metafunc.fixturenames:
            continue
        backends, modes, suites = _selected(metafunc.config)
        params = [
            pytest.param(
                CaseParam(backend, mode, suite.name, case, position),
                id=f"{backend}-{mode.value}-{case.id}",
                marks=getattr(pytest.mark, backend),
            )
            for backend in backends
            for mode in modes
            for suite in suites
            for position, case in enumerate(getattr(suite, attribute))
        ]
        metafunc.parametrize(fixture, params)


class _Runners:
    """One runner per (backend, suite) in this process, so static cases share a loaded index."""

    def __init__(self) -> None:
        self._suites: dict[str, Suite] = {}
        self._runners: dict[tuple[str, str], SuiteRunner] = {}
        self._backends: dict[str, object] = {}

    def get(self, backend: str, suite_name: str, needs_vectors: bool) -> SuiteRunner:
        key = (backend, suite_name)
        if key not in self._runners:
            suite = self._suites.setdefault(suite_name, load_suite(suite_name))
            engine = self._backends.setdefault(backend, open_backend(backend))
            embedder = suite_embedder(DEFAULT_MODEL) if needs_vectors else None
            self._runners[key] = SuiteRunner(engine, suite, embedder=embedder)
        return self._runners[key]

    def close(self) -> None:
        for runner in self._runners.values():
            runner.close()
        for engine in self._backends.values():
            engine.close()


_RUNNERS = pytest.StashKey[_Runners]()


def pytest_unconfigure(config: pytest.Config) -> None:
    runners = config.stash.get(_RUNNERS, None)
    if runners is not None:
        runners.close()


@pytest.fixture
def harness_runner(request: pytest.FixtureRequest):
    """Returns the runner for a CaseParam: `harness_runner(param)`."""
    runners = request.config.stash[_RUNNERS]
    modes = _selected(request.config)[1]
    needs_vectors = any(m is not Mode.BM25 for m in modes)
    return lambda param: runners.get(param.backend, param.suite, needs_vectors)
