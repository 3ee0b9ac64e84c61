"""Start one backend container, published on 127.0.0.1 only, and wait until it serves.

Containers are reached only through a loopback publication: never on
0.0.0.0 (nothing is exposed to the network) and never through the bridge
gateway testcontainers may report (172.17.0.1), which is not routable on
every machine. Each run's containers sit on a network of the run's own and
each server gets a random password, so other containers on the host can
neither reach nor use them.
"""

import contextlib
import re
import secrets
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from docker.errors import APIError, DockerException
from docker.models.containers import Container
from testcontainers.core.config import testcontainers_config
from testcontainers.core.container import DockerContainer

from harness.messages import one_line
from harness.processes import signals_deferred

from .engine import docker_client
from .errors import ContainerError
from .images import choose_image
from .labels import labels_for
from .network import remove_unused_network, run_network
from .spec import HEALTHCHECK, ContainerSpec

LOOPBACK = "127.0.0.1"
LOG_TAIL_LINES = 40
_POLL_SECONDS = 0.25
NO_HEALTHCHECK = {"test": ["NONE"]}
"""The image's HEALTHCHECK, switched off where readiness is the spec's exec command: that is polled
here until the server serves, and the image's check would exec in the container every 2 s for its
whole life (the local images' own, kept for `docker compose`), costing the engine CPU (measured: 0.03
s a second per container) that a run's latencies would share."""

_CONFIG = threading.Lock()


@contextlib.contextmanager
def _harness_settings() -> Iterator[None]:
    """testcontainers' settings for starting the harness's own container only, restored after:
    no Ryuk (it cannot be pulled everywhere; cleanup.py removes containers by label instead) and
    the loopback host. Other testcontainers users in the process keep theirs."""
    with _CONFIG:
        saved = testcontainers_config.ryuk_disabled, testcontainers_config.tc_host_override
        testcontainers_config.ryuk_disabled, testcontainers_config.tc_host_override = True, LOOPBACK
        try:
            yield
        finally:
            testcontainers_config.ryuk_disabled, testcontainers_config.tc_host_override = saved


@dataclass
class RunningContainer:
    """A started, ready backend container; `stop()` removes it."""

    backend: str
    image: str
    port: int
    url: str
    """How a client connects, the container's password included."""
    _container: DockerContainer
    _network: str
    host: str = LOOPBACK

    @property
    def name(self) -> str:
        return str(self._container.get_wrapped_container().name)

    def stop(self) -> None:
        """Remove the container (and its anonymous volumes), then its network unless another
        container of the run still uses it; safe to call twice. A signal meanwhile waits for both."""
        with signals_deferred():
            _remove(self._container)
            remove_unused_network(self._network)


def start_container(
    spec: ContainerSpec, run_id: str, host_port: int | None = None, owner_pid: int | None = None
) -> RunningContainer:
    """Run `spec` labelled for `run_id`, on 127.0.0.1:host_port (a free port if None).

    Raises ContainerError (the container removed) if it cannot start or is
    not ready within spec.startup_timeout.
    """
    client = docker_client()
    try:
        image = choose_image(spec, client)
        labels = labels_for(spec.name, run_id, owner_pid)
        network = run_network(client, run_id, labels)
    finally:
        client.close()

    password = secrets.token_hex(16)
    resolved = spec.with_password(password)
    container = DockerContainer(image, env=dict(resolved.env))
    checks = {} if spec.readiness == HEALTHCHECK else {"healthcheck": NO_HEALTHCHECK}
    container.with_name(_container_name(spec.name, run_id)).with_kwargs(labels=labels, network=network, **checks)
    if resolved.command:
        container.with_command(list(resolved.command))
    # docker SDK binding (ip, port): loopback only; port None lets the engine pick a free one.
    container.ports = {f"{spec.port}/tcp": (LOOPBACK, host_port)}  # type: ignore[dict-item]
    try:
        _start(container, spec, image, host_port)
        port = _published_port(container, spec)
        _wait_ready(container, resolved, port)
    except BaseException:
        with signals_deferred():
            _remove(container)
            remove_unused_network(network)
        raise
    return RunningContainer(spec.name, image, port, spec.connection_url(LOOPBACK, port, password), container, network)


def _start(container: DockerContainer, spec: ContainerSpec, image: str, host_port: int | None) -> None:
    try:
        with _harness_settings():
            container.start()
    except APIError as exc:
        text = str(exc)
        if host_port is not None and ("already allocated" in text or "address already in use" in text):
            raise ContainerError(f"{spec.name}: host port {LOOPBACK}:{host_port} is already in use") from exc
        raise ContainerError(f"{spec.name}: container from {image} did not start: {one_line(exc)}") from exc


def _published_port(container: DockerContainer, spec: ContainerSpec) -> int:
    wrapped = container.get_wrapped_container()
    _check_running(container, spec)
    bindings = (wrapped.attrs["NetworkSettings"]["Ports"] or {}).get(f"{spec.port}/tcp") or []
    if not bindings:
        raise ContainerError(_not_ready(spec, container, None, f"port {spec.port} is not published ({wrapped.status})"))
    if any(b["HostIp"] != LOOPBACK for b in bindings):
        raise ContainerError(f"{spec.name}: port {spec.port} published beyond {LOOPBACK}: {bindings}")
    return int(bindings[0]["HostPort"])


def _wait_ready(container: DockerContainer, spec: ContainerSpec, port: int) -> None:
    """Poll readiness until spec.startup_timeout; a container that exits fails at once."""
    wrapped = container.get_wrapped_container()
    deadline = time.monotonic() + spec.startup_timeout
    while True:
        _check_running(container, spec)
        ready, reason = _ready(wrapped, spec)
        if ready:
            return
        if time.monotonic() >= deadline:
            raise ContainerError(_not_ready(spec, container, port, reason))
        time.sleep(_POLL_SECONDS)


def _check_running(container: DockerContainer, spec: ContainerSpec) -> None:
    """Refresh the container's state; one that has exited will never serve, so fail now."""
    wrapped = container.get_wrapped_container()
    wrapped.reload()
    state = wrapped.attrs["State"]
    if state["Status"] in ("exited", "dead"):
        raise ContainerError(
            f"{spec.name}: container exited at start with code {state['ExitCode']} "
            f"(image {wrapped.attrs['Config']['Image']})\n"
            f"--- last {LOG_TAIL_LINES} log lines ---\n{_logs_tail(container, LOG_TAIL_LINES)}"
        )


def _ready(wrapped: Container, spec: ContainerSpec) -> tuple[bool, str]:
    """(ready?, why not) by the image's HEALTHCHECK or the spec's exec command."""
    if spec.readiness == HEALTHCHECK:
        health = wrapped.attrs["State"].get("Health")
        if health is None:
            raise ContainerError(f"{spec.name}: readiness is 'healthcheck' but the image has no HEALTHCHECK")
        if health["Status"] == "unhealthy":
            last = (health.get("Log") or [{}])[-1].get("Output", "")
            raise ContainerError(f"{spec.name}: container is unhealthy: {one_line(ValueError(last))}")
        return health["Status"] == "healthy", f"health status {health['Status']}"
    try:
        result = wrapped.exec_run(list(spec.readiness))
    except APIError as exc:
        return False, one_line(exc)  # exiting meanwhile: the next poll sees the exit
    return result.exit_code == 0, f"{' '.join(spec.readiness)} exited {result.exit_code}"


def _not_ready(spec: ContainerSpec, container: DockerContainer, port: int | None, reason: str) -> str:
    where = f"{LOOPBACK}:{port}" if port else "no port"
    return (
        f"{spec.name} ({where}) not ready within {spec.startup_timeout:g}s: {reason}\n"
        f"--- last {LOG_TAIL_LINES} log lines ---\n{_logs_tail(container, LOG_TAIL_LINES)}"
    )


def _logs_tail(container: DockerContainer, n: int) -> str:
    return str(container.get_wrapped_container().logs(tail=n).decode(errors="replace"))


def _remove(container: DockerContainer) -> None:
    # Already gone, or the engine went away: clean-up by label catches the rest.
    with contextlib.suppress(DockerException):
        container.stop()


def _container_name(backend: str, run_id: str) -> str:
    run = re.sub(r"[^a-zA-Z0-9_.-]", "-", run_id)[:40]
    return f"harness-{backend}-{run}-{uuid.uuid4().hex[:6]}"
