"""SIGTERM to `pytest -n 2` while a test holds the run's shared server: the run tears down as on
Ctrl-C, leaving no container, network or server record (the file with the password) behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import docker
import pytest

from tests.containers.conftest import ROOT
from tests.faults.helpers import remove_containers_of, wait_for

_HOLDS_A_SERVER = """
import os
import time
from pathlib import Path


def test_holds_the_server(server_url):
    server_url("redis")
    Path(os.environ["STARTED_FLAG"]).write_text("started")
    time.sleep(600)
"""

PYTEST_ARGS = ["-p", "no:cacheprovider", "-p", "no:popoto", "-q"]
"""No popoto plugin, as in this repository's ini: its import and Redis probe cost each process seconds."""


def _owned(client: docker.DockerClient, pid: int) -> list[str]:
    label = {"label": f"harness.pid={pid}"}
    return [c.name for c in client.containers.list(all=True, filters=label)] + [
        n.name for n in client.networks.list(filters=label)
    ]


@pytest.mark.usefixtures("local_images")
def test_sigterm_tears_the_run_down_as_ctrl_c_does(tmp_path: Path) -> None:
    (tmp_path / "test_hold.py").write_text(_HOLDS_A_SERVER)
    flag, basetemp = tmp_path / "started", tmp_path / "basetemp"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    options = ["-n", "2", "--rootdir", str(tmp_path), "--basetemp", str(basetemp), "--harness-backend", "redis"]
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", *PYTEST_ARGS, *options, str(tmp_path / "test_hold.py")],
        cwd=tmp_path,
        env={**environment, "STARTED_FLAG": str(flag), "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    client = docker.from_env()
    try:
        wait_for(lambda: flag.exists() or run.poll() is not None, 240, "the test to hold the server")
        assert run.poll() is None, run.communicate()[0]
        assert _owned(client, run.pid), "the run's server must exist while the test holds it"
        assert list((basetemp / "harness-servers").glob("*.json")), "the server's record must exist while it runs"
        run.send_signal(signal.SIGTERM)
        output, _ = run.communicate(timeout=120)
        assert _owned(client, run.pid) == [], f"left behind by SIGTERM:\n{output}"
        records = basetemp / "harness-servers"
        assert not records.exists() or list(records.iterdir()) == [], f"server records left: {list(records.iterdir())}"
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(timeout=30)
        remove_containers_of(run.pid)
        for network in client.networks.list(filters={"label": f"harness.pid={run.pid}"}):
            network.remove()
        client.close()
