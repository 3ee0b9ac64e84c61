"""A system under test keeps its own files out of the user's home: mem0, imported by the harness,
writes `config.json` (an anonymous user id) into a folder of the harness's, never `~/.mem0`, and
leaves a user's own `MEM0_DIR` where the user put it."""

from __future__ import annotations

import importlib.util
import os
import shutil
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
print(os.environ.get("MEM0_DIR", ""))
"""


def _import_mem0(home: Path, **extra: str) -> str:
    """mem0 imported as the harness imports it, in a process whose home is `home`; its MEM0_DIR."""
    environment = {k: v for k, v in os.environ.items() if k not in ("MEM0_DIR", "HOME")}
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
    return run.stdout.strip()


def test_mem0_writes_nothing_into_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    given = _import_mem0(home)
    try:
        assert list(home.rglob("*")) == [], "mem0 wrote into the user's home"
        folder = Path(given)
        assert folder.is_absolute(), given
        assert home not in folder.parents
        assert (folder / "config.json").is_file(), "mem0's own file is in the harness's folder"
    finally:
        if given and Path(given).is_absolute() and Path(given).name.startswith("harness-mem0-dir-"):
            shutil.rmtree(given, ignore_errors=True)  # only the folder the harness made for this process


def test_a_users_own_mem0_dir_is_kept(tmp_path: Path) -> None:
    home, own = tmp_path / "home", tmp_path / "mine"
    home.mkdir()
    assert _import_mem0(home, MEM0_DIR=str(own)) == str(own)
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

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("POPOTO_CONTENT_PATH", raising=False)
    url = server_url("redis")
    backend = backends.connect("redis", url)
    try:
        system = popoto.open_popoto(opening(backend, "redis", url, Ledger()))
        system.add([Record(id="r1", text="the deploy key rotates weekly", user="u")])
        assert system.search(Query(text="deploy key", user="u", limit=3), Mode.HYBRID)
        system.close()
    finally:
        backend.close()
    assert list(home.rglob("*")) == [], "Popoto wrote into the user's home"
