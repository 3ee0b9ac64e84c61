"""The harness turns testcontainers' Ryuk off (and pins the loopback host) only while it starts
its own containers: other testcontainers users in the same process keep their settings."""

from __future__ import annotations

import subprocess
import sys

import pytest
from testcontainers.core.config import testcontainers_config
from testcontainers.core.container import DockerContainer

from harness.containers import load_spec, start_container
from harness.containers.errors import ContainerError
from tests.faults.helpers import ROOT, env


def test_importing_the_harness_changes_no_testcontainers_setting() -> None:
    code = (
        "from testcontainers.core.config import testcontainers_config as c\n"
        "before = (c.ryuk_disabled, c.tc_host_override)\n"
        "import harness.containers.runtime, harness.cli\n"
        "print(before == (c.ryuk_disabled, c.tc_host_override), c.ryuk_disabled)\n"
    )
    environment = {k: v for k, v in env().items() if not k.startswith(("TESTCONTAINERS_", "TC_"))}
    done = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"], done.stdout + done.stderr


def test_ryuk_is_off_only_while_the_harness_starts_its_container(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(testcontainers_config, "ryuk_disabled", False)
    monkeypatch.setattr(testcontainers_config, "tc_host_override", None)
    seen: list[tuple[bool, str | None]] = []

    def start(_self: DockerContainer) -> DockerContainer:
        seen.append((testcontainers_config.ryuk_disabled, testcontainers_config.tc_host_override))
        raise ContainerError("stop here: no container is needed")

    monkeypatch.setattr(DockerContainer, "start", start)
    # a unit test of the settings: no Docker engine is needed, so the container gets no client
    monkeypatch.setattr("testcontainers.core.container.DockerClient", lambda **_: None)
    monkeypatch.setattr("harness.containers.runtime.choose_image", lambda *_: "harness/none:0")
    monkeypatch.setattr("harness.containers.runtime.run_network", lambda *_: "none")
    monkeypatch.setattr("harness.containers.runtime.remove_unused_network", lambda *_: None)
    monkeypatch.setattr("harness.containers.runtime.docker_client", lambda: type("C", (), {"close": lambda _: None})())
    monkeypatch.setattr("harness.containers.runtime._remove", lambda *_: None)
    with pytest.raises(ContainerError, match="stop here"):
        start_container(load_spec("redis", ROOT), "ryuk-scope")
    assert seen == [(True, "127.0.0.1")]
    assert (testcontainers_config.ryuk_disabled, testcontainers_config.tc_host_override) == (False, None)
