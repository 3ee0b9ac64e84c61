"""Servers the harness starts: unreachable from other containers, password-protected, and a
container that dies at start is reported at once. Runs on every local server backend."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import docker
import pytest

from harness.containers import ContainerError, docker_client, load_spec, remove_run, start_container
from harness.containers.labels import RUN
from harness.containers.network import NETWORK
from tests.containers import conftest as containers
from tests.containers.conftest import LOCAL_SERVERS

# The container tests' fixtures: local images built once, a run id whose leftovers are removed.
local_images, root, run_id = containers.local_images, containers.root, containers.run_id

PROBE_IMAGE = "harness/redis:8"
"""Any local image with bash: the neighbour that tries to reach a server."""


@pytest.fixture
def client() -> Iterator[docker.DockerClient]:
    engine = docker_client()
    yield engine
    engine.close()


def tcp_probe(client: docker.DockerClient, run: str, address: str, port: int, network: str | None = None) -> int:
    """Exit status of a neighbour container opening a TCP connection to address:port (0: it could)."""
    neighbour = client.containers.run(
        PROBE_IMAGE,
        ["bash", "-c", f"timeout 3 bash -c '</dev/tcp/{address}/{port}'"],
        detach=True,
        labels={RUN: run},  # removed with the run if anything below fails
        **({"network": network} if network else {}),
    )
    try:
        return int(neighbour.wait(timeout=30)["StatusCode"])
    finally:
        neighbour.remove(force=True)


def refuses_without_password(backend: str, url: str) -> str:
    """The error a client without the password gets (and proof that the password works)."""
    parts = urlsplit(url)
    if backend == "postgres":
        import psycopg

        with psycopg.connect(url, connect_timeout=5) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        with pytest.raises(psycopg.OperationalError) as refused:
            psycopg.connect(
                host=parts.hostname, port=parts.port, user="harness", dbname="harness", password="", connect_timeout=5
            )
        return str(refused.value)
    import redis

    assert redis.Redis.from_url(url).set("with-password", "1")
    with pytest.raises(redis.AuthenticationError) as refused:
        redis.Redis(host=parts.hostname or "", port=parts.port or 0).dbsize()
    return str(refused.value)


@pytest.mark.parametrize("backend", LOCAL_SERVERS)
def test_other_containers_cannot_reach_the_server(
    backend: str, root: Path, run_id: str, client: docker.DockerClient
) -> None:
    spec = load_spec(backend, root)
    running = start_container(spec, run_id)
    try:
        settings = client.containers.get(running.name).attrs["NetworkSettings"]["Networks"]
        assert "bridge" not in settings, "the server must not sit on Docker's default bridge"
        ((network_name, endpoint),) = settings.items()
        address = endpoint["IPAddress"]
        # A container on the default bridge (any other container on the host) gets nowhere ...
        assert tcp_probe(client, run_id, address, spec.port) != 0
        # ... where one on the run's own network does, so the probe itself can succeed.
        assert tcp_probe(client, run_id, address, spec.port, network=network_name) == 0
        network = client.networks.get(network_name)
        assert network.attrs["Labels"][RUN] == run_id and NETWORK in network.attrs["Labels"]
    finally:
        running.stop()
    assert client.api.networks(filters={"label": f"{RUN}={run_id}"}) == [], "the run's network must go with it"


@pytest.mark.parametrize("backend", LOCAL_SERVERS)
def test_a_client_without_the_password_is_refused(backend: str, root: Path, run_id: str) -> None:
    first = start_container(load_spec(backend, root), run_id)
    second = start_container(load_spec(backend, root), run_id)
    try:
        error = refuses_without_password(backend, first.url)
        assert "password" in error if backend == "postgres" else "authenticated" in error, error
        passwords = {urlsplit(r.url).password for r in (first, second)}
        assert len(passwords) == 2 and None not in passwords and "harness" not in passwords
    finally:
        first.stop()
        second.stop()


def test_remove_run_removes_its_network(root: Path, run_id: str, client: docker.DockerClient) -> None:
    running = start_container(load_spec("valkey", root), run_id)
    assert len(client.api.networks(filters={"label": f"{RUN}={run_id}"})) == 1
    remove_run(run_id)
    assert client.api.networks(filters={"label": f"{RUN}={run_id}"}) == []
    running.stop()  # already gone: still fine


@pytest.mark.parametrize("backend", LOCAL_SERVERS)
def test_a_container_that_exits_at_start_is_reported_at_once(
    backend: str, root: Path, run_id: str, client: docker.DockerClient
) -> None:
    spec = replace(
        load_spec(backend, root),
        command=("sh", "-c", "echo starting-and-failing; exit 3"),
        startup_timeout=120,
    )
    began = time.monotonic()
    with pytest.raises(ContainerError) as info:
        start_container(spec, run_id)
    waited = time.monotonic() - began
    first, *tail = str(info.value).splitlines()
    assert first.startswith(f"{backend}: container exited at start with code 3"), first
    assert "starting-and-failing" in tail[-1]
    assert waited < spec.startup_timeout / 4, f"waited {waited:.0f}s for a container that had exited"
    assert client.containers.list(all=True, filters={"label": f"{RUN}={run_id}"}) == []
