"""`harness down` on an engine shared with live runs: it removes only the containers whose owning
process on this host is gone (pid unused, or reused by a later process: the start-time label tells)
and names those it keeps (live runs, other hosts); `--all` removes every one and says so.

The engine is shared with other runs while this test runs, so the harness's view of it is narrowed
to this test's run (its containers listed by their run label): what the command decides about
each container is what is tested, and no other run's container is ever at stake. The other way
round, every run that starts meanwhile removes the containers of dead runs it sees: this test's
containers name a host of the test's own (`host_of`), which only the narrowed clean-up takes for
this one, so no other run takes them as its own to remove."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import docker
import pytest

from harness.containers import cleanup, docker_client, load_spec
from harness.containers.labels import BACKEND, HOST, PID, RUN, STARTED
from harness.processes import process_started
from tests.containers import conftest as containers
from tests.containers.conftest import ROOT

run_id = containers.run_id  # a run id of this test's own; what it leaves is removed


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@pytest.fixture
def engine(run_id: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[docker.DockerClient]:
    """A client of the real engine; the clean-up's own clients see this run's containers and networks only."""

    def narrowed() -> docker.DockerClient:
        client = docker_client()
        listed, networks = client.api.containers, client.api.networks

        def containers(**options: Any) -> Any:
            return listed(**{**options, "filters": {"label": [f"{RUN}={run_id}"]}})

        def run_networks(**options: Any) -> Any:
            return networks(**{**options, "filters": {"label": [f"{RUN}={run_id}"]}})

        client.api.containers, client.api.networks = containers, run_networks  # type: ignore[method-assign]
        return client

    monkeypatch.setattr(cleanup, "docker_client", narrowed)
    monkeypatch.setattr(cleanup, "socket", SimpleNamespace(gethostname=lambda: host_of(run_id)))
    client = docker_client()
    yield client
    client.close()


def host_of(run_id: str) -> str:
    """The host this test's containers name as theirs, and the narrowed clean-up takes for its own."""
    return f"host-of-{run_id}"


def _containers(client: docker.DockerClient, run_id: str) -> dict[str, str]:
    """One stopped container per owner: alive here, pid reused here, dead here, alive on another host."""
    image = load_spec("redis", ROOT).local_image
    assert image is not None
    here, me = host_of(run_id), os.getpid()
    started = process_started(me)
    assert started is not None, "this host has /proc: the test must see start times"
    owners = {
        "alive": {PID: str(me), HOST: here, STARTED: started},
        "reused": {PID: str(me), HOST: here, STARTED: str(int(started) - 1)},
        "dead": {PID: str(_dead_pid()), HOST: here},
        "elsewhere": {PID: str(me), HOST: f"not-{here}"},
    }
    return {
        role: str(client.containers.create(image, command=["true"], labels={RUN: run_id, BACKEND: "redis", **o}).name)
        for role, o in owners.items()
    }


def _left(client: docker.DockerClient, run_id: str) -> set[str]:
    return {c.name for c in client.containers.list(all=True, filters={"label": f"{RUN}={run_id}"})}


def test_down_keeps_live_runs_and_removes_the_dead(
    cli: Callable[..., tuple[int, str, str]], engine: docker.DockerClient, run_id: str
) -> None:
    made = _containers(engine, run_id)
    code, out, err = cli("down")
    assert code == 0, err
    assert _left(engine, run_id) == {made["alive"], made["elsewhere"]}, out
    assert "removed 2 container(s) of runs whose process is gone" in out, out
    assert made["dead"] in out, out
    assert made["reused"] in out, out
    assert f"kept {made['alive']}: its run's process {os.getpid()} is alive" in out, out
    assert f"kept {made['elsewhere']}: started on host not-{host_of(run_id)}" in out, out


def test_down_all_removes_live_runs_too_and_says_so(
    cli: Callable[..., tuple[int, str, str]], engine: docker.DockerClient, run_id: str
) -> None:
    made = _containers(engine, run_id)
    code, out, err = cli("down", "--all")
    assert code == 0, err
    assert _left(engine, run_id) == set()
    assert "removed 4 container(s) of every harness run, live ones included" in out, out
    assert all(name in out for name in made.values()), out
