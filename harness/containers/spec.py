"""Declarative per-backend container specs (containers/<backend>.toml).

Kept as data so adding or retuning a backend touches no Python, and so a
typo in a spec fails at load time naming the file and field, not minutes
later as an opaque container start failure.
"""

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from .errors import ContainerError

SPEC_DIR = "containers"
HEALTHCHECK: Literal["healthcheck"] = "healthcheck"
PASSWORD = "{password}"

_KNOWN = {"image", "local_image", "dockerfile", "port", "url", "env", "command", "readiness", "startup_timeout"}


@dataclass(frozen=True)
class ContainerSpec:
    """How to run one backend; `readiness` is an exec command or "healthcheck";
    `url` is the client connection URL with `{host}`, `{port}` and `{password}` placeholders.

    `{password}` may also appear in `env` values, `command` and `readiness`: each container
    gets a random password of its own (`with_password`), so the spec stays declarative and
    works unchanged with the registry images."""

    name: str
    image: str
    port: int
    url: str
    readiness: tuple[str, ...] | Literal["healthcheck"]
    startup_timeout: float
    local_image: str | None = None
    dockerfile: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    command: tuple[str, ...] | None = None

    def connection_url(self, host: str, port: int, password: str) -> str:
        return self.url.format(host=host, port=port, password=password)

    def with_password(self, password: str) -> "ContainerSpec":
        """This spec with `{password}` filled in wherever the container sees it."""

        def fill(text: str) -> str:
            return text.replace(PASSWORD, password)

        return replace(
            self,
            env={k: fill(v) for k, v in self.env.items()},
            command=tuple(map(fill, self.command)) if self.command else None,
            readiness=self.readiness if self.readiness == HEALTHCHECK else tuple(map(fill, self.readiness)),
        )

    @property
    def image_override_var(self) -> str:
        """Env var that, when set, names the image to run instead."""
        return "HARNESS_" + re.sub(r"\W", "_", self.name).upper() + "_IMAGE"


def available_specs(root: Path) -> list[str]:
    """Backend names that have a spec under root/containers."""
    return sorted(p.stem for p in (root / SPEC_DIR).glob("*.toml"))


def load_spec(backend: str, root: Path) -> ContainerSpec:
    """Read and validate root/containers/<backend>.toml."""
    path = root / SPEC_DIR / f"{backend}.toml"
    if not path.is_file():
        known = ", ".join(available_specs(root)) or "none"
        raise ContainerError(f"unknown backend '{backend}': no {path} (known: {known})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ContainerError(f"{path}: not valid TOML: {exc}") from exc
    return _parse(backend, _Fields(path, data))


class _Fields:
    """Typed field access that fails with the file and field named."""

    def __init__(self, path: Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    def fail(self, name: str, expected: str) -> ContainerError:
        return ContainerError(f"{self.path}: field '{name}': expected {expected}, got {self.data.get(name)!r}")

    def text(self, name: str) -> str:
        value = self.data.get(name)
        if not isinstance(value, str) or not value:
            raise self.fail(name, "a non-empty string")
        return value

    def optional_text(self, name: str) -> str | None:
        return self.text(name) if name in self.data else None

    def argv(self, name: str) -> tuple[str, ...]:
        value = self.data.get(name)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise self.fail(name, "a non-empty list of strings")
        return tuple(value)

    def number(self, name: str) -> int | float:
        value = self.data.get(name)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise self.fail(name, "a number")
        return value


def _parse(backend: str, f: _Fields) -> ContainerSpec:
    unknown = sorted(set(f.data) - _KNOWN)
    if unknown:
        raise ContainerError(f"{f.path}: unknown field '{unknown[0]}' (allowed: {', '.join(sorted(_KNOWN))})")

    local_image, dockerfile = f.optional_text("local_image"), f.optional_text("dockerfile")
    if (local_image is None) != (dockerfile is None):
        raise ContainerError(f"{f.path}: field 'dockerfile': 'local_image' and 'dockerfile' must be given together")

    port = f.number("port")
    if not isinstance(port, int) or not 0 < port < 65536:
        raise f.fail("port", "an integer 1-65535")
    timeout = f.number("startup_timeout")
    if timeout <= 0:
        raise f.fail("startup_timeout", "a positive number of seconds")

    env = f.data.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise f.fail("env", "a table of string values")

    readiness: tuple[str, ...] | Literal["healthcheck"]
    if f.data.get("readiness") == HEALTHCHECK:
        readiness = HEALTHCHECK
    elif isinstance(f.data.get("readiness"), list):
        readiness = f.argv("readiness")
    else:
        raise f.fail("readiness", f'an exec command (list of strings) or "{HEALTHCHECK}"')

    url = f.text("url")
    try:
        url.format(host="127.0.0.1", port=port, password="pw")
    except (KeyError, IndexError, ValueError):
        raise f.fail("url", "a URL whose only placeholders are {host}, {port} and {password}") from None

    return ContainerSpec(
        name=backend,
        image=f.text("image"),
        port=port,
        url=url,
        readiness=readiness,
        startup_timeout=float(timeout),
        local_image=local_image,
        dockerfile=dockerfile,
        env=dict(env),
        command=f.argv("command") if "command" in f.data else None,
    )
