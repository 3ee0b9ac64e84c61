"""docker/compose.yaml, generated from the container specs, so server settings live in one place.

The harness starts its own containers from containers/*.toml; compose is for starting the same
servers by hand. Each service gets its spec's image (the local build where there is one), command
and environment, with the password taken from $HARNESS_PASSWORD, published on 127.0.0.1 at its
port (the next free one when two servers share a port). A server with no local build sits in a
profile of its own name, so a plain `up` never needs a registry.
"""

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

import yaml

from .spec import ContainerSpec

COMPOSE_FILE = "compose.yaml"
COMPOSE_PASSWORD = "${HARNESS_PASSWORD:?set HARNESS_PASSWORD}"
HEADER = """\
# Generated from containers/*.toml by `harness images compose`: edit the specs, then run it.
# Manual debugging only (the harness starts its own containers on random
# ports). Everything is published on 127.0.0.1, never on the network; the
# services sit on the project's own network (not Docker's default bridge) and
# need a password, as the harness's own containers do:
#   export HARNESS_PASSWORD=$(openssl rand -hex 16)
#   docker compose -f docker/compose.yaml -p harness up -d
#   docker compose -f docker/compose.yaml -p harness --profile atlas up -d   # no local build: needs a registry
# Build the local images first (`harness images build`), or let compose build
# them: with Debian's engine (no BuildKit) set DOCKER_BUILDKIT=0. Works with
# Compose v2 and v1 (`docker-compose`).
"""


def compose_services(specs: Sequence[ContainerSpec]) -> dict[str, Any]:
    """The compose document for `specs`, in their order."""
    services: dict[str, Any] = {}
    taken: set[int] = set()
    for spec in specs:
        host_port = spec.port
        while host_port in taken:
            host_port += 1
        taken.add(host_port)
        filled = spec.with_password(COMPOSE_PASSWORD)
        service: dict[str, Any] = {}
        if spec.dockerfile is not None:
            service["build"] = f"./{PurePosixPath(spec.dockerfile).parent}"
            service["image"] = spec.local_image
        else:
            service["profiles"] = [spec.name]
            service["image"] = spec.image
        if filled.command:
            service["command"] = list(filled.command)
        if filled.env:
            service["environment"] = dict(filled.env)
        service["ports"] = [f"127.0.0.1:{host_port}:{spec.port}"]
        services[spec.name] = service
    return {"services": services}


def compose_yaml(specs: Sequence[ContainerSpec]) -> str:
    body = yaml.safe_dump(compose_services(specs), sort_keys=False, default_flow_style=False, width=1000)
    return HEADER + body
