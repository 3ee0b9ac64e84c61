"""Labels that tie each container to its run and owning process.

Ryuk (testcontainers' reaper) cannot be pulled everywhere, so the harness
cleans up itself; these labels are what clean-up selects on.
"""

import os
import socket

from harness.processes import process_started

RUN = "harness.run"
BACKEND = "harness.backend"
PID = "harness.pid"
HOST = "harness.host"
STARTED = "harness.started"
"""When the owning process started (`process_started`): a pid reused by another process is not the owner."""


def labels_for(backend: str, run_id: str, owner_pid: int | None = None) -> dict[str, str]:
    """Labels for a container owned by `owner_pid` (default: this process), e.g. a pytest
    controller whose workers start the containers it will remove."""
    pid = owner_pid or os.getpid()
    started = process_started(pid)
    owner = {PID: str(pid), HOST: socket.gethostname(), **({STARTED: started} if started else {})}
    return {RUN: run_id, BACKEND: backend, **owner}
