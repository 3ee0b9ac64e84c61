"""Remove harness containers, and then their runs' networks, by label.

Ryuk cannot be pulled everywhere, so the harness reaps its own containers:
a run's at its end, a killed run's at the next start and on `harness down`
(only those whose owning process is gone: the engine may be shared with live
runs of other processes and users), everything only on `harness down --all`.
A network goes once no container uses it any more.
"""

import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from docker.errors import APIError

from harness.processes import same_process

from .engine import docker_client
from .labels import HOST, PID, RUN, STARTED
from .network import NETWORK, remove_network


@dataclass
class Sweep:
    """What one clean-up removed, and (by name, with why) the harness containers it left."""

    removed: list[str] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)


def remove_run(run_id: str) -> list[str]:
    """Remove the containers of one run; returns their names."""
    return _remove_where(lambda labels: None if labels.get(RUN) == run_id else "another run").removed


def remove_leftovers() -> list[str]:
    """Remove containers whose owning process on this host is gone (a killed run); returns their names."""
    return remove_dead().removed


def remove_dead() -> Sweep:
    """Remove containers whose owning process on this host is gone, its pid unused or reused by
    another process (the start-time label tells); keep those of live runs and of other hosts."""
    host = socket.gethostname()
    return _remove_where(lambda labels: _alive(labels, host))


def remove_all() -> Sweep:
    """Remove every harness container, running or not, of any process on any host."""
    return _remove_where(lambda _labels: None)


def _alive(labels: Mapping[str, str], host: str) -> str | None:
    """Why a container of these labels stays (its owner is alive, or on a host this one cannot see
    into), or None: its owner is gone."""
    if labels.get(HOST) != host:
        return f"started on host {labels.get(HOST) or 'unknown'}"
    if same_process(labels.get(PID), labels.get(STARTED)):
        return f"its run's process {labels.get(PID)} is alive"
    return None


def _remove_where(kept: Callable[[Mapping[str, str]], str | None]) -> Sweep:
    """Remove each harness container (then network) for which `kept` gives no reason to stay."""
    client = docker_client()
    sweep = Sweep()
    try:
        # The low-level list is one call, so containers other processes remove meanwhile can't break it.
        for summary in client.api.containers(all=True, filters={"label": RUN}):
            name = summary["Names"][0].lstrip("/")
            if (why := kept(summary["Labels"])) is not None:
                sweep.kept.append((name, why))
            else:
                try:
                    client.api.remove_container(summary["Id"], force=True, v=True)
                except APIError as exc:
                    if exc.status_code in (404, 409):
                        continue  # removed (or being removed) meanwhile by another process
                    raise
                sweep.removed.append(name)
        for network in client.api.networks(filters={"label": [RUN, NETWORK]}):
            if kept(network["Labels"]) is None:
                remove_network(client, network["Id"])
    finally:
        client.close()
    return sweep
