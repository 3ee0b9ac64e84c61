"""Where a system under test keeps files of its own (mem0's `config.json` and history database,
Popoto's vector files): in the harness's state folder (`ledger.state_dir()`), one folder per run
process and system, `<state dir>/systems/<host>-<pid>/<system>`; never the user's home.

They live as the run's data does: the last system of a package to close removes its folder (and its
process's, once empty), as it drops its namespace (`Users`: at `--concurrency` N several are open), and a process that ends normally removes its whole folder (mem0
writes its config when imported, before any system is opened or closed); a killed run leaves them,
as it leaves its namespaces, and `harness down` removes the folders of this host's processes that
are gone (`remove_dead`).
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.backends.ledger import state_dir
from harness.processes import process_alive

SYSTEMS = "systems"


def _process_folder() -> Path:
    return state_dir() / SYSTEMS / f"{socket.gethostname()}-{os.getpid()}"


def own_folder(system: str) -> Path:
    """This process's folder for `system`'s own files, made (owner-only) if missing."""
    process = _process_folder()
    if not process.exists():  # the process's first: it goes when the process ends, whatever closed
        atexit.register(shutil.rmtree, process, ignore_errors=True)
    folder = process / system
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def is_own(path: str | Path) -> bool:
    """Whether `path` is a folder `own_folder` gave this process (so the harness may remove it)."""
    return Path(path).parent == _process_folder()


def remove_own(path: str | Path) -> None:
    """Remove a folder `own_folder` gave this process, and the process's folder once empty; any
    other path is left alone (a user's own setting)."""
    if not is_own(path):
        return
    shutil.rmtree(path, ignore_errors=True)
    try:
        _process_folder().rmdir()
    except OSError:  # another system's folder is still there, or it is gone already
        pass


@dataclass
class Users:
    """How many systems of one package are open in this process, for what they share in it (its
    folder, a package's process-wide client): at `--concurrency` N several are open at once, and
    only the last to close may remove what the others still use."""

    _open: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def enter(self) -> None:
        with self._lock:
            self._open += 1

    def leave(self, last: Callable[[], None]) -> None:
        """One fewer open; the last one calls `last` before another can enter (which waits)."""
        with self._lock:
            self._open -= 1
            if self._open == 0:
                last()


def remove_dead() -> list[Path]:
    """Remove the folders of this host's run processes that are gone; returns what was removed."""
    root = state_dir() / SYSTEMS
    prefix = f"{socket.gethostname()}-"
    removed = []
    for folder in sorted(root.glob(f"{prefix}*")) if root.is_dir() else []:
        pid = folder.name.removeprefix(prefix)
        if pid.isdigit() and not process_alive(pid):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
