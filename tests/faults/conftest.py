"""Fault tests: the real CLI in process (`main`) or as a subprocess; server legs start their own containers."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from tests.containers.conftest import local_images, require_docker_or_skip  # noqa: F401 - fixtures shared here


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`server` runs on each local server backend, or those named with `--harness-backend`; `one_server`
    on the first of them (what differs between engines is tested on each elsewhere); `any_server` on
    every server backend named with `--harness-backend` (atlas too), by default the local ones."""
    chosen = dict.fromkeys(metafunc.config.getoption("--harness-backend") or registry.default_run())
    local_servers = [d.name for d in registry.DESCRIPTORS if d.server is not None and d.local]
    if "server" in metafunc.fixturenames:
        metafunc.parametrize("server", [b for b in chosen if b in local_servers])
    if "one_server" in metafunc.fixturenames:
        metafunc.parametrize("one_server", [b for b in chosen if b in local_servers][:1])
    if "any_server" in metafunc.fixturenames:
        metafunc.parametrize("any_server", [b for b in chosen if b in registry.servers()])


@pytest.fixture(scope="module", params=[pytest.param(n, marks=getattr(pytest.mark, n)) for n in registry.default_run()])
def backend(request: pytest.FixtureRequest, server_url) -> Iterator[Backend]:
    """Each local engine in turn: what one engine accepts, every engine must."""
    name = request.param
    engine = registry.connect(name, server_url(name) if name in registry.servers() else None)
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def locomo() -> Path:
    """The LoCoMo file where the harness looks for it (`$HARNESS_DATA_DIR`, `../shared/datasets`)."""
    from harness.suites.datasets import SPECS, find_file

    found = find_file(SPECS["locomo"].files)
    if found is None:
        pytest.skip("locomo10.json is not in $HARNESS_DATA_DIR or ../shared/datasets")
    return found


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """`cli(*args)`: run `harness.cli.main` in process; (exit code, stdout, stderr)."""
    from harness.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["harness", *args])
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # what main sets, undone after the test
        with pytest.raises(SystemExit) as exit_info:
            main()
        out, err = capsys.readouterr()
        return int(exit_info.value.code or 0), out, err

    return run
