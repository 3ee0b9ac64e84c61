"""Where the containers extra is not installed (no docker SDK), a command that would start or
remove a container says so in one line and exits 2: a missing extra is the user's to install."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.faults.helpers import ROOT, harness, one_line


@pytest.fixture
def no_docker_sdk(tmp_path: Path) -> dict[str, str]:
    """A `docker` package that imports as a missing one, first on the path after this checkout."""
    stub = tmp_path / "stub" / "docker"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text('raise ModuleNotFoundError("No module named \'docker\'", name="docker")\n')
    return {"PYTHONPATH": os.pathsep.join((str(ROOT), str(stub.parent)))}


@pytest.mark.parametrize("args", [("up", "redis"), ("run", "-b", "redis", "-m", "bm25"), ("down",)])
def test_a_container_command_without_the_extra_is_one_line_and_exit_2(
    tmp_path: Path, no_docker_sdk: dict[str, str], args: tuple[str, ...]
) -> None:
    done = harness(*args, cwd=tmp_path, **no_docker_sdk)
    assert done.returncode == 2, done.stderr
    assert one_line(done.stderr) == (
        "harness: error: containers need the containers extra (the docker SDK): "
        "pip install 'memory-retrieval-harness[containers]'"
    )
