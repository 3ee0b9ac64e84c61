"""Spec loading and its one-line errors; no Docker needed."""

import json
from pathlib import Path

import pytest
import yaml

from harness.backends import registry
from harness.containers import ContainerError, ContainerSpec, available_specs, load_spec
from harness.containers.compose import COMPOSE_FILE, COMPOSE_PASSWORD, compose_yaml
from harness.containers.spec import HEALTHCHECK

REGISTRY_IMAGES = {
    "atlas": "mongodb/mongodb-atlas-local:8",
    "postgres": "pgvector/pgvector:pg17",
    "redis": "redis:8",
    "redis-core": "redis:8",
    "valkey": "valkey/valkey:8",
}


def test_shipped_specs_load(root: Path) -> None:
    assert set(REGISTRY_IMAGES) <= set(available_specs(root))
    for backend, image in REGISTRY_IMAGES.items():
        spec = load_spec(backend, root)
        assert (spec.name, spec.image) == (backend, image)
        assert spec.startup_timeout > 0
        if spec.dockerfile:
            assert (root / "docker" / spec.dockerfile).is_file()
    assert load_spec("atlas", root).readiness == HEALTHCHECK
    assert load_spec("atlas", root).local_image is None
    assert load_spec("postgres", root).readiness[0] == "pg_isready"
    assert load_spec("postgres", root).image_override_var == "HARNESS_POSTGRES_IMAGE"


def test_unknown_backend_names_file_and_known(root: Path) -> None:
    with pytest.raises(ContainerError, match=r"unknown backend 'nope'.*nope\.toml.*known: atlas, postgres"):
        load_spec("nope", root)


VALID = 'image = "x:1"\nport = 80\nurl = "x://{host}:{port}"\nreadiness = ["true"]\nstartup_timeout = 5\n'


@pytest.mark.parametrize(
    ("toml", "field"),
    [
        ("image = \n", "not valid TOML"),
        (VALID.replace("port = 80", 'port = "80"'), "'port'"),
        (VALID.replace("port = 80", "port = 70000"), "'port'"),
        (VALID.replace("port = 80\n", ""), "'port'"),
        (VALID.replace('image = "x:1"', "image = 3"), "'image'"),
        (VALID.replace('["true"]', "[]"), "'readiness'"),
        (VALID.replace('["true"]', '"ping"'), "'readiness'"),
        (VALID.replace("= 5", "= -1"), "'startup_timeout'"),
        (VALID + "command = 'redis-server'\n", "'command'"),
        (VALID + "[env]\nA = 1\n", "'env'"),
        (VALID + 'local_image = "harness/x:1"\n', "'dockerfile'"),
        (VALID + "prot = 1\n", "unknown field 'prot'"),
        (VALID.replace("{port}", "{port}/{pasword}"), "'url'"),
    ],
)
def test_malformed_spec_names_file_and_field(tmp_path: Path, toml: str, field: str) -> None:
    (tmp_path / "containers").mkdir()
    path = tmp_path / "containers" / "bad.toml"
    path.write_text(toml)
    with pytest.raises(ContainerError) as info:
        load_spec("bad", tmp_path)
    message = str(info.value)
    assert str(path) in message
    assert field in message
    assert "\n" not in message


def test_minimal_spec_defaults(tmp_path: Path) -> None:
    (tmp_path / "containers").mkdir()
    (tmp_path / "containers" / "x.toml").write_text(VALID)
    spec = load_spec("x", tmp_path)
    assert (spec.env, spec.command, spec.local_image, spec.readiness) == ({}, None, None, ("true",))


def test_every_server_gets_a_password_of_its_own(root: Path) -> None:
    for backend in REGISTRY_IMAGES:
        spec = load_spec(backend, root)
        assert ":{password}@" in spec.url, spec.url
        assert "{password}" in [*spec.env.values(), *(spec.command or ())], backend
        resolved = spec.with_password("s3cret")
        assert "{password}" not in repr((resolved.env, resolved.command, resolved.readiness))
        assert spec.connection_url("127.0.0.1", 1, "s3cret").count("s3cret") == 1


def shipped_specs(root: Path) -> list[ContainerSpec]:
    return [load_spec(registry.container_spec(name), root) for name in registry.servers()]


def test_compose_file_is_generated_from_the_specs(root: Path) -> None:
    """Server settings live in containers/*.toml alone: `harness images compose` writes the file."""
    committed = (root / "docker" / COMPOSE_FILE).read_text(encoding="utf-8")
    assert committed == compose_yaml(shipped_specs(root)), "docker/compose.yaml is stale: run `harness images compose`"


def test_compose_services_run_what_the_specs_say(root: Path) -> None:
    services = yaml.safe_load(compose_yaml(shipped_specs(root)))["services"]
    assert list(services) == list(registry.servers())
    ports = [port for service in services.values() for port in service["ports"]]
    assert all(p.startswith("127.0.0.1:") for p in ports)
    assert len({p.split(":")[1] for p in ports}) == len(ports)
    assert services["redis-core"]["ports"] == ["127.0.0.1:6380:6379"]  # redis holds 6379
    assert services["valkey"]["ports"] == ["127.0.0.1:6381:6379"]
    assert services["atlas"]["profiles"] == ["atlas"]
    assert "build" not in services["atlas"]
    for spec in shipped_specs(root):
        service = services[spec.name]
        assert service["environment"] == {k: v.replace("{password}", COMPOSE_PASSWORD) for k, v in spec.env.items()}
        assert service.get("command") == (
            [a.replace("{password}", COMPOSE_PASSWORD) for a in spec.command] if spec.command else None
        )
        assert service["image"] == (spec.local_image or spec.image)


def test_dockerfiles_carry_no_server_settings(root: Path) -> None:
    """The spec's command is passed at start; an image's CMD names its server and nothing more."""
    for spec in shipped_specs(root):
        if spec.dockerfile is None:
            continue
        lines = (root / "docker" / spec.dockerfile).read_text(encoding="utf-8").splitlines()
        (cmd,) = [line for line in lines if line.startswith("CMD ")]
        assert spec.command is not None, spec.name
        assert json.loads(cmd.removeprefix("CMD ")) == [spec.command[0]], spec.name
