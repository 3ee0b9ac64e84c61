"""A system's own files live as the run's data does (issue 34): in `<state dir>/systems/<host>-<pid>/
<system>`, removed when the system closes; a killed run's stay until `harness down` finds its
process gone (`own_files.remove_dead`), and never another host's."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.systems import own_files


def test_down_removes_the_folders_of_processes_that_are_gone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path))
    live = own_files.own_folder("mem0")
    dead_pid = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / "systems" / f"{socket.gethostname()}-{int(dead_pid.stdout)}" / "popoto"
    dead.mkdir(parents=True)
    other_host = tmp_path / "systems" / "elsewhere-1" / "mem0"
    other_host.mkdir(parents=True)
    assert own_files.remove_dead() == [dead.parent]
    assert live.is_dir()
    assert other_host.is_dir(), "another host's processes are not this host's to judge"
    own_files.remove_own(live)
    assert not live.parent.exists(), "the process's folder goes with its last system's"


def test_a_process_that_ends_normally_leaves_no_folder_and_a_killed_one_leaves_its_own(tmp_path: Path) -> None:
    """mem0 writes its config when imported, before any system closes: a process that only imports
    it (a `harness doctor`, a test worker) must not leave that behind; a killed one cannot help it."""
    made = "from harness.systems import own_files; print(own_files.own_folder('mem0'), flush=True)"
    env = {"HARNESS_STATE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    ended = subprocess.run([sys.executable, "-c", made], capture_output=True, text=True, env=env, check=True)
    assert ended.stdout.strip().startswith(str(tmp_path))
    assert not Path(ended.stdout.strip()).parent.exists()
    killed = subprocess.run(
        [sys.executable, "-c", f"{made}; import os, signal; os.kill(os.getpid(), signal.SIGKILL)"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert killed.returncode == -9
    assert Path(killed.stdout.strip()).is_dir(), "a killed run's folder stays for `harness down`"
