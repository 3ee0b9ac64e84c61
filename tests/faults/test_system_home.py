"""A system under test keeps its own files in the run's state folder, never the user's home (issue
34): mem0, imported by the harness, writes `config.json` (an anonymous user id) into
`<state dir>/systems/<host>-<pid>/mem0`, never `~/.mem0`, and leaves a user's own `MEM0_DIR` where
the user put it; Popoto's vector files go to its folder there, removed when it closes; `harness
down` removes the folders of processes that are gone (`own_files.remove_dead`)."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.helpers import ROOT

if importlib.util.find_spec("mem0") is None:  # found, not imported: an import here would be mem0's with telemetry on
    pytest.skip("mem0 is not installed (the mem0 extra)", allow_module_level=True)

_OPEN = """
import os
from harness.systems.mem0 import _require
_require()
folder = os.environ.get("MEM0_DIR", "")
print(folder, *sorted(os.listdir(folder)), sep="\\n")
"""
"""mem0 imported as the harness imports it: its MEM0_DIR, then what mem0 wrote there (listed while
the process runs: the harness removes its own folder when the process ends)."""


def _import_mem0(home: Path, **extra: str) -> tuple[Path, list[str]]:
    """`_OPEN` in a process whose home is `home`: its MEM0_DIR and the files mem0 wrote there."""
    unset = ("MEM0_DIR", "HOME", "HARNESS_STATE_DIR", "XDG_STATE_HOME")
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    run = subprocess.run(
        [sys.executable, "-c", _OPEN],
        cwd=home.parent,
        env={**environment, "HOME": str(home), "PYTHONPATH": str(ROOT), **extra},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    folder, *files = run.stdout.strip().splitlines()
    return Path(folder), files


def test_mem0_keeps_its_files_in_the_runs_state_folder(tmp_path: Path) -> None:
    home, state = tmp_path / "home", tmp_path / "state"
    home.mkdir()
    folder, files = _import_mem0(home, HARNESS_STATE_DIR=str(state))
    assert list(home.rglob("*")) == [], "mem0 wrote into the user's home"
    assert folder.name == "mem0"
    assert folder.parent.parent == state / "systems", folder
    assert folder.parent.name.startswith(f"{socket.gethostname()}-")
    assert "config.json" in files, "mem0's own file is in the run's folder"
    assert not folder.parent.exists(), "a process that ends normally takes its folder with it"


def test_without_a_state_dir_set_mem0_writes_only_under_the_harness_state_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    folder, files = _import_mem0(home)
    assert "config.json" in files
    assert folder.is_relative_to(home / ".local" / "state" / "harness" / "systems"), folder
    assert not (home / ".mem0").exists()
    assert [p.relative_to(home).parts[0] for p in home.iterdir()] == [".local"]


def test_a_users_own_mem0_dir_is_kept(tmp_path: Path) -> None:
    home, own = tmp_path / "home", tmp_path / "mine"
    home.mkdir()
    assert _import_mem0(home, MEM0_DIR=str(own), HARNESS_STATE_DIR=str(tmp_path / "state"))[0] == own
    assert (own / "config.json").is_file()
    assert list(home.rglob("*")) == []


@pytest.mark.redis
def test_popoto_writes_nothing_into_home(server_url, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Popoto with vectors on the run's redis, HOME a fresh folder: nothing of it appears there."""
    pytest.importorskip("popoto")
    from harness.backends import registry as backends
    from harness.pipeline.settings import Mode
    from harness.systems import popoto
    from harness.systems.protocol import Query, Record
    from tests.systems.helpers_adapters import Ledger, opening

    home, state = tmp_path / "home", tmp_path / "state"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HARNESS_STATE_DIR", str(state))
    monkeypatch.delenv("POPOTO_CONTENT_PATH", raising=False)
    url = server_url("redis")
    backend = backends.connect("redis", url)
    try:
        system = popoto.open_popoto(opening(backend, "redis", url, Ledger()))
        system.add([Record(id="r1", text="the deploy key rotates weekly", user="u")])
        assert system.search(Query(text="deploy key", user="u", limit=3), Mode.HYBRID)
        content = Path(os.environ["POPOTO_CONTENT_PATH"])
        assert content.parent.parent == state / "systems", content
        assert any(content.rglob("*.npy")), "Popoto's vectors are in the run's folder while it is open"
        system.close()
    finally:
        backend.close()
    assert list(home.rglob("*")) == [], "Popoto wrote into the user's home"
    assert list((state / "systems").iterdir()) == [], "closed, its folder and the process's are gone"
