"""Remove harness containers, and then their runs' networks, by label.

Ryuk cannot be pulled everywhere, so the harness reaps its own containers:
a run's at its end, a crashed run's at the next start, everything on
`harness down`. Each function returns the names of the containers removed;
a network goes once no container uses it any more.
"""

import socket
from collections.abc import Callable, Mapping

from docker.errors import APIError

from harness.processes import process_alive

from .engine import docker_client
from .labels import HOST, PID, RUN
from .network import NETWORK, remove_network


def remove_run(run_id: str) -> list[str]:
    """Remove the containers of one run; returns their names."""
    return _remove_where(lambda labels: labels.get(RUN) == run_id)


def remove_leftovers() -> list[str]:
    """Remove containers whose owning process on this host is gone (a crashed run)."""
    host = socket.gethostname()
    return _remove_where(lambda labels: labels.get(HOST) == host and not process_alive(labels.get(PID)))


def remove_all() -> list[str]:
    """Remove every harness container, running or not."""
    return _remove_where(lambda _labels: True)


def _remove_where(selected: Callable[[Mapping[str, str]], bool]) -> list[str]:
    client = docker_client()
    removed = []
    try:
        # The low-level list is one call, so containers other processes remove meanwhile can't break it.
        for summary in client.api.containers(all=True, filters={"label": RUN}):
            if selected(summary["Labels"]):
                try:
                    client.api.remove_container(summary["Id"], force=True, v=True)
                except APIError as exc:
                    if exc.status_code in (404, 409):
                        continue  # removed (or being removed) meanwhile by another process
                    raise
                removed.append(summary["Names"][0].lstrip("/"))
        for network in client.api.networks(filters={"label": [RUN, NETWORK]}):
            if selected(network["Labels"]):
                remove_network(client, network["Id"])
    finally:
        client.close()
    return removed
