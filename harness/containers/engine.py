"""Reach the Docker engine, or say in one line why not.

Every container feature needs the engine; failing early with the reason
(no socket, engine not answering) beats a stack trace from deep inside the
docker SDK or testcontainers.
"""

from pathlib import Path

import docker
from docker.errors import DockerException
from testcontainers.core.docker_client import get_docker_host

from harness.messages import one_line

from .errors import DockerUnavailable, NoDockerEngine

DEFAULT_SOCKET = "unix:///var/run/docker.sock"


def docker_client(timeout: int = 10) -> docker.DockerClient:
    """A client for the engine testcontainers would use (DOCKER_HOST, context or the default socket)."""
    host = get_docker_host() or DEFAULT_SOCKET
    socket = Path(host.removeprefix("unix://"))
    if host.startswith("unix://") and not socket.exists():
        raise NoDockerEngine(f"no Docker engine: socket {socket} does not exist (is dockerd running?)")
    try:
        client = docker.DockerClient(base_url=host, timeout=timeout)
        client.ping()
    except DockerException as exc:
        raise DockerUnavailable(f"Docker engine at {host} is not answering: {one_line(exc)}") from exc
    return client


def docker_available() -> str | None:
    """None when an engine answers, else the reason it does not (for skips and messages)."""
    try:
        docker_client().close()
    except DockerUnavailable as exc:
        return str(exc)
    return None
