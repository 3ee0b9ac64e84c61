"""Starting backend containers for real: readiness, loopback-only ports, failures leave nothing."""

import os
import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import docker
import pytest

from harness.containers import ContainerError, ContainerSpec, choose_image, docker_client, load_spec, start_container
from harness.containers.labels import BACKEND, PID, RUN


@pytest.fixture
def client() -> Iterator[docker.DockerClient]:
    engine = docker_client()
    yield engine
    engine.close()


def run_containers(client: docker.DockerClient, run_id: str) -> list[str]:
    return [str(c.name) for c in client.containers.list(all=True, filters={"label": f"{RUN}={run_id}"})]


def speak(backend: str, url: str) -> None:
    """One real protocol exchange, so 'ready' means a client can work."""
    if backend == "postgres":
        psycopg = pytest.importorskip("psycopg")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            assert conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone() == (1.0,)
    else:
        redis = pytest.importorskip("redis")
        assert redis.Redis.from_url(url).ping()


@pytest.mark.parametrize("backend", ["postgres", "redis", "valkey"])
def test_starts_ready_on_loopback_only(backend: str, root: Path, run_id: str, client: docker.DockerClient) -> None:
    running = start_container(load_spec(backend, root), run_id)
    try:
        assert running.host == "127.0.0.1"
        attrs = client.containers.get(running.name).attrs
        bindings = attrs["NetworkSettings"]["Ports"][f"{load_spec(backend, root).port}/tcp"]
        assert bindings == [{"HostIp": "127.0.0.1", "HostPort": str(running.port)}]
        labels = attrs["Config"]["Labels"]
        assert (labels[RUN], labels[BACKEND], labels[PID]) == (run_id, backend, str(os.getpid()))
        # readiness was the spec's command: the image's own HEALTHCHECK (the local images have one) is off
        assert attrs["Config"]["Healthcheck"]["Test"] == ["NONE"]
        assert "Health" not in attrs["State"]
        speak(backend, running.url)
    finally:
        running.stop()
    assert run_containers(client, run_id) == []
    running.stop()  # idempotent


def test_given_host_port_is_used(root: Path, run_id: str) -> None:
    port = free_port()
    running = start_container(load_spec("valkey", root), run_id, host_port=port)
    try:
        assert running.port == port
        speak("valkey", running.url)
    finally:
        running.stop()


def test_busy_host_port_is_a_clear_error(root: Path, run_id: str, client: docker.DockerClient) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ContainerError, match=rf"redis: host port 127\.0\.0\.1:{port} is already in use"):
            start_container(load_spec("redis", root), run_id, host_port=port)
    assert run_containers(client, run_id) == []


def test_port_held_by_another_container(root: Path, run_id: str, client: docker.DockerClient) -> None:
    first = start_container(load_spec("redis", root), run_id)
    try:
        with pytest.raises(ContainerError, match="already in use"):
            start_container(load_spec("valkey", root), run_id, host_port=first.port)
        assert run_containers(client, run_id) == [first.name]
    finally:
        first.stop()


def test_never_ready_raises_with_log_tail_and_leaves_nothing(
    root: Path, run_id: str, client: docker.DockerClient
) -> None:
    spec = replace(load_spec("redis", root), readiness=("false",), startup_timeout=2)
    with pytest.raises(ContainerError) as info:
        start_container(spec, run_id)
    message = str(info.value)
    assert message.startswith("redis (127.0.0.1:")
    assert "not ready within 2s" in message
    assert "Ready to accept connections" in message  # the server's own log line, from the tail
    assert run_containers(client, run_id) == []


def test_crashing_container_shows_its_output(root: Path, run_id: str, client: docker.DockerClient) -> None:
    spec = replace(load_spec("valkey", root), command=("sh", "-c", "echo boom-from-container; exit 3"))
    with pytest.raises(ContainerError, match="boom-from-container"):
        start_container(replace(spec, startup_timeout=2), run_id)
    assert run_containers(client, run_id) == []


@pytest.mark.usefixtures("local_images")
def test_image_override_that_cannot_be_had(
    root: Path, client: docker.DockerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec: ContainerSpec = load_spec("redis", root)
    monkeypatch.setenv(spec.image_override_var, spec.local_image or "")
    assert choose_image(spec, client) == spec.local_image
    monkeypatch.setenv(spec.image_override_var, "harness-test/no-such-image:0")
    with pytest.raises(ContainerError, match="harness-test/no-such-image:0 is not here and cannot be pulled"):
        choose_image(spec, client)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
