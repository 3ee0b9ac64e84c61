"""Whether the process that owns something still runs: how clean-up tells a live run from a
killed one (containers by their labels, `--url` namespaces by their ledger entries).

Imports nothing, so the `--url` ledger works where the containers extra is not installed.
"""

import os


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
