"""Label-based clean-up: crashed runs' containers go, live runs' stay."""

import os
import socket
import subprocess
from pathlib import Path

from harness.containers import docker_client, load_spec, remove_leftovers, remove_run
from harness.containers.labels import BACKEND, HOST, PID, RUN


def dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_leftovers_of_dead_owners_are_removed(root: Path, run_id: str) -> None:
    host = socket.gethostname()
    image = load_spec("redis", root).local_image
    assert image is not None
    client = docker_client()
    try:

        def labelled(pid: int, owner_host: str) -> str:
            labels = {RUN: run_id, BACKEND: "redis", PID: str(pid), HOST: owner_host}
            return str(client.containers.create(image, command=["sleep", "60"], labels=labels).name)

        crashed = labelled(dead_pid(), host)
        alive = labelled(os.getpid(), host)
        elsewhere = labelled(dead_pid(), "another-host")

        removed = remove_leftovers()
        assert alive not in removed
        assert elsewhere not in removed
        # Any harness start removes leftovers, so a concurrent test may have removed `crashed` first:
        # what matters is that it is gone and the others are not.
        left = {c.name for c in client.containers.list(all=True, filters={"label": f"{RUN}={run_id}"})}
        assert crashed not in left
        assert left == {alive, elsewhere}
        assert sorted(remove_run(run_id)) == sorted([alive, elsewhere])
    finally:
        client.close()


def test_networks_of_dead_owners_are_removed(run_id: str) -> None:
    from harness.containers.network import NETWORK

    host = socket.gethostname()
    client = docker_client()
    try:

        def network(pid: int) -> str:
            labels = {RUN: run_id, BACKEND: "redis", PID: str(pid), HOST: host, NETWORK: "1"}
            return str(client.api.create_network(f"harness-{run_id}-{pid}", labels=labels)["Id"])

        crashed, alive = network(dead_pid()), network(os.getpid())
        remove_leftovers()
        left = {n["Id"] for n in client.api.networks(filters={"label": f"{RUN}={run_id}"})}
        assert crashed not in left
        assert alive in left
        remove_run(run_id)
        assert client.api.networks(filters={"label": f"{RUN}={run_id}"}) == []
    finally:
        client.close()
