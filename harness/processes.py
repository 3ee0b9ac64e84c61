"""Whether the process that owns something still runs: how clean-up tells a live run from a
killed one (containers by their labels, `--url` namespaces by their ledger entries); and clean-up
that a signal cannot cut half-way.

Imports only the standard library, so the `--url` ledger works where the containers extra is not installed.
"""

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def process_alive(pid: str | int | None) -> bool:
    """Whether a process with this id (or a label's text of it) exists on this host."""
    try:
        number = int(pid or "")
        if number <= 0:
            return False
        os.kill(number, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True  # exists, owned by another user
    return True


def process_started(pid: str | int | None) -> str | None:
    """When the process `pid` on this host started, as the kernel counts it (clock ticks since boot,
    from /proc): with the pid, it names one process, so a reused pid is told from its first owner.
    None where it cannot be read (no such process, no /proc)."""
    try:
        stat = Path(f"/proc/{int(pid or '')}/stat").read_text(encoding="ascii", errors="replace")
    except (ValueError, OSError):
        return None
    fields = stat.rpartition(")")[2].split()  # the command name, in parentheses, may hold spaces
    return fields[19] if len(fields) > 19 else None  # field 22 of proc(5): starttime


def same_process(pid: str | int | None, started: str | None) -> bool:
    """Whether `pid` still names the process that had it when `started` was read (`process_started`);
    where no start time was recorded or none can be read now, whether the pid exists."""
    if not process_alive(pid):
        return False
    now = process_started(pid)
    return started is None or now is None or now == started


@contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM arriving inside the block (a teardown) are held until it ends, then
    delivered to the handler in place before it (the CLI's raises `Interrupted`; one that ignores
    them ignores them): a signal during a container's removal left the container or its network."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives signals
        return
    held: list[int] = []
    previous = {
        s: signal.signal(s, lambda signum, _frame: held.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for handled, handler in previous.items():
            signal.signal(handled, handler)
        if held:
            signal.raise_signal(held[0])
