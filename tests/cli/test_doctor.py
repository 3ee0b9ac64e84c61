"""`harness doctor`: every extra of the package is checked, a missing piece is named with its fix, and the exit
code says whether anything needed is missing."""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness import doctor
from harness.doctor import SETUP, START_ENGINE, Status

ROOT = Path(__file__).resolve().parents[2]


def _by_name(found: list[doctor.Check]) -> dict[str, doctor.Check]:
    return {c.name: c for c in found}


def test_every_extra_of_pyproject_is_checked() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = _by_name(list(doctor._extras()))
    assert {f"extra [{e}]" for e in extras} | {"core dependencies"} == set(names)
    # the README's set-up installs them all: in this test environment every one is there
    assert all(c.status is Status.OK for c in names.values()), [c for c in names.values() if c.status is not Status.OK]


def test_a_missing_requirement_is_named_with_the_setup_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = metadata.version

    def version(name: str) -> str:
        if name == "redis":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(doctor.metadata, "version", version)
    found = _by_name(list(doctor._extras()))
    assert found["extra [redis]"].status is Status.MISSING
    assert found["extra [redis]"].detail == "redis not installed"
    assert found["extra [redis]"].fix == SETUP
    assert found["extra [postgres]"].status is Status.OK


def test_a_version_that_does_not_fit_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    real = metadata.version
    monkeypatch.setattr(doctor.metadata, "version", lambda name: "1.0" if name == "numpy" else real(name))
    core = _by_name(list(doctor._extras()))["core dependencies"]
    assert core.status is Status.MISSING
    assert "numpy 1.0 does not satisfy >=1.26" in core.detail


def test_without_a_docker_engine_it_says_so_and_exits_1(tmp_path: Path) -> None:
    env = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no.sock"}
    harness = Path(sys.executable).with_name("harness")
    done = subprocess.run([harness, "doctor", "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    found = {c["name"]: c for c in json.loads(done.stdout)}
    engine = found["docker engine"]
    assert engine["status"] == "missing"
    assert f"{tmp_path}/no.sock does not exist" in engine["detail"]
    assert engine["fix"] == START_ENGINE
    assert not any(name.startswith("image ") for name in found)  # images are not looked for without an engine
    assert done.stderr == ""
    table = subprocess.run([harness, "doctor"], env=env, capture_output=True, text=True, timeout=120)
    assert table.returncode == 1
    assert "docker engine" in table.stdout
