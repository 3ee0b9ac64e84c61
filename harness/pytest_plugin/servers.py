"""Server backends under pytest: ONE container per backend for the whole run, shared by the xdist
workers, and each process's connections to them.

The first worker that needs a server starts it under a file lock and records its URL; the others
read the record. Workers isolate their data by namespace (schema, key prefix, collection), so they
never collide. The controller owns the containers (they carry its pid) and removes them when the
run ends; a crashed run's containers are removed by the next start. Without a Docker engine a
server's items skip with the reason, unless HARNESS_REQUIRE_DOCKER=1 makes that a failure.

The controller hands its run id, pid and records folder to the workers through xdist's
`workerinput`, never through the environment. The records (server URLs, passwords included) live
in a 0700 folder under the controller's basetemp, one 0600 file per backend.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.errors import BackendUnavailable
from harness.pytest_plugin.run import Run

REQUIRE_DOCKER_ENV = "HARNESS_REQUIRE_DOCKER"


class SharedServers:
    """Server URLs for this run: started once across workers, recorded in a shared folder.

    The records hold passwords: the folder is 0700 and each file 0600, whatever the umask."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def _record(self, backend: str) -> Path:
        return self.run.records / f"{backend}.json"

    def url(self, backend: str) -> str:
        from filelock import FileLock

        from harness.backends.provision import start_server

        self.run.records.mkdir(mode=0o700, exist_ok=True)
        record = self._record(backend)
        with FileLock(f"{record}.lock", mode=0o600):
            if not record.exists():
                try:
                    url, _ = start_server(backend, self.run.run_id, owner_pid=self.run.owner)
                    _write_private(record, {"url": url})
                except BackendUnavailable as exc:
                    _write_private(record, {"error": str(exc)})
            data = json.loads(record.read_text())
        if "error" in data:
            raise BackendUnavailable(data["error"])
        return data["url"]

    def forget(self) -> None:
        for path in self.run.records.glob("*"):
            path.unlink(missing_ok=True)

    def remove(self) -> None:
        """In the controller, when the run ends: remove what any process started, and the records; a
        signal meanwhile waits until they are gone."""
        if not self.run.started():
            return
        from harness.containers import ContainerError, remove_run
        from harness.processes import signals_deferred

        with signals_deferred():
            try:
                remove_run(self.run.run_id)
            except ContainerError:
                pass  # the engine went away; the next start removes what is left
            self.forget()


def _write_private(path: Path, data: dict[str, str]) -> None:
    """Write `data` as JSON readable by this user alone (0600 from creation, never widened)."""
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
        json.dump(data, out)


class Connections:
    """Per process: a connection to each backend an item or test asked for, on the run's servers."""

    def __init__(self, selected: list[str], servers: SharedServers) -> None:
        self.selected = selected
        self.servers = servers
        self._backends: dict[str, Backend] = {}

    def url(self, name: str) -> str:
        """The run's shared server of `name`; skips (or fails, under HARNESS_REQUIRE_DOCKER=1) without Docker."""
        if name not in self.selected:
            pytest.skip(f"{name} not selected (run with --harness-backend {name})")
        from harness.containers import docker_available

        reason = docker_available()
        if reason is not None:
            if os.environ.get(REQUIRE_DOCKER_ENV) == "1":
                pytest.fail(f"{name}: {reason} (HARNESS_REQUIRE_DOCKER=1)", pytrace=False)
            pytest.skip(f"{name}: {reason}")
        try:
            return self.servers.url(name)
        except BackendUnavailable as exc:
            pytest.fail(f"{name}: {exc}", pytrace=False)

    def backend(self, name: str) -> Backend:
        if name not in self._backends:
            server = registry.descriptor(name).server is not None
            self._backends[name] = registry.connect(name, self.url(name) if server else None)
        return self._backends[name]

    def close(self) -> None:
        for backend in self._backends.values():
            try:
                backend.close()
            except Exception:  # noqa: BLE001 - closing a dead server must not fail the run
                pass
