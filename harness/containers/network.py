"""A Docker network of each run's own, so no other container on the host can reach its servers.

On Docker's default bridge every container can open a connection to every other one; a
user-defined bridge is isolated from the default bridge and from other networks by the engine.
Not `internal`: an internal network cannot publish ports, and the harness reaches its servers
only through ports published on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import re
import uuid

import docker
from docker.errors import APIError, DockerException, NotFound

from harness.messages import one_line

from .engine import docker_client
from .errors import ContainerError
from .labels import RUN

NETWORK = "harness.network"
"""Label on every harness network, so clean-up can tell them from its containers' labels."""


def run_network(client: docker.DockerClient, run_id: str, labels: dict[str, str]) -> str:
    """The id of `run_id`'s network, created (labelled like its containers) if it has none yet.

    Two processes of one run (pytest workers) may each create one at the same moment: both
    networks carry the run's labels, so clean-up removes both.
    """
    existing = client.api.networks(filters={"label": [f"{RUN}={run_id}", NETWORK]})
    if existing:
        return str(existing[0]["Id"])
    name = "harness-" + re.sub(r"[^a-zA-Z0-9_.-]", "-", run_id)[:40] + "-" + uuid.uuid4().hex[:6]
    try:
        created = client.api.create_network(name, driver="bridge", labels={**labels, NETWORK: "1"})
    except APIError as exc:  # e.g. the engine's address pools are used up by other networks
        raise ContainerError(f"cannot create a Docker network for run {run_id}: {one_line(exc)}") from exc
    return str(created["Id"])


def remove_network(client: docker.DockerClient, network_id: str) -> bool:
    """Remove a network unless a container still uses it (another backend of the same run)."""
    try:
        client.api.remove_network(network_id)
    except NotFound:
        return False
    except APIError as exc:
        if exc.status_code in (403, 409):  # active endpoints: the last one out removes it
            return False
        raise
    return True


def remove_unused_network(network_id: str) -> None:
    """Best effort after a container is gone; the engine may be gone too (clean-up by label follows)."""
    with contextlib.suppress(DockerException, ContainerError):
        client = docker_client()
        try:
            remove_network(client, network_id)
        finally:
            client.close()
