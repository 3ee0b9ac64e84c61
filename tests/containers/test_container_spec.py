"""Spec loading and its one-line errors; no Docker needed."""

import json
from pathlib import Path

import pytest
import yaml

from harness.containers import ContainerError, available_specs, load_spec
from harness.containers.spec import HEALTHCHECK

REGISTRY_IMAGES = {
    "atlas": "mongodb/mongodb-atlas-local:8",
    "postgres": "pgvector/pgvector:pg17",
    "redis": "redis:8",
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
    assert str(path) in message and field in message
    assert "\n" not in message


def test_minimal_spec_defaults(tmp_path: Path) -> None:
    (tmp_path / "containers").mkdir()
    (tmp_path / "containers" / "x.toml").write_text(VALID)
    spec = load_spec("x", tmp_path)
    assert (spec.env, spec.command, spec.local_image, spec.readiness) == ({}, None, None, ("true",))


PASSWORD_ARGS = ("--requirepass", "{password}")
COMPOSE_PASSWORD = "${HARNESS_PASSWORD:?set HARNESS_PASSWORD}"


def test_every_server_gets_a_password_of_its_own(root: Path) -> None:
    for backend in REGISTRY_IMAGES:
        spec = load_spec(backend, root)
        assert ":{password}@" in spec.url, spec.url
        assert "{password}" in [*spec.env.values(), *(spec.command or ())], backend
        resolved = spec.with_password("s3cret")
        assert "{password}" not in repr((resolved.env, resolved.command, resolved.readiness))
        assert spec.connection_url("127.0.0.1", 1, "s3cret").count("s3cret") == 1


def test_server_settings_agree_across_specs_compose_and_dockerfiles(root: Path) -> None:
    """containers/*.toml runs the servers; compose.yaml and the images' CMDs say the same."""
    compose = yaml.safe_load((root / "docker" / "compose.yaml").read_text())["services"]
    for backend in REGISTRY_IMAGES:
        spec = load_spec(backend, root)
        service = compose[backend]
        env = {k: v.replace("{password}", COMPOSE_PASSWORD) for k, v in spec.env.items()}
        assert {k: str(v) for k, v in (service.get("environment") or {}).items()} == env, backend
        if spec.command:
            assert service["command"] == [a.replace("{password}", COMPOSE_PASSWORD) for a in spec.command]
            cmd = next(
                line
                for line in (root / "docker" / (spec.dockerfile or "")).read_text().splitlines()
                if line.startswith("CMD ")
            )
            command = list(spec.command)
            at = command.index(PASSWORD_ARGS[0])
            assert tuple(command[at : at + 2]) == PASSWORD_ARGS
            assert json.loads(cmd.removeprefix("CMD ")) == command[:at] + command[at + 2 :], backend
