"""`harness down` where no Docker engine exists: nothing can be running, so there is nothing to
remove; one line and exit 0. An engine that is there but does not answer is still exit 3."""

from __future__ import annotations

from pathlib import Path

from tests.faults.helpers import harness, one_line


def test_down_without_a_docker_engine_says_so_and_exits_0(tmp_path: Path) -> None:
    socket = tmp_path / "no-engine" / "docker.sock"
    state = tmp_path / "state"  # a state folder of its own: what other runs left is not this test's
    down = harness("down", cwd=tmp_path, DOCKER_HOST=f"unix://{socket}", HARNESS_STATE_DIR=str(state))
    assert down.returncode == 0, down.stderr
    assert down.stderr == ""
    assert down.stdout.strip() == f"removed 0 container(s): no Docker engine: socket {socket} does not exist " + (
        "(is dockerd running?)"
    )


def test_down_with_an_engine_that_does_not_answer_exits_3(tmp_path: Path) -> None:
    down = harness("down", cwd=tmp_path, DOCKER_HOST="tcp://127.0.0.1:1")
    assert down.returncode == 3
    assert one_line(down.stderr).startswith("harness: error: Docker engine at tcp://127.0.0.1:1 is not answering")
