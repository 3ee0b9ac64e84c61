"""Spec loading and its one-line errors; no Docker needed."""

from pathlib import Path

import pytest

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
