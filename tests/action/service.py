"""The example memory service (examples/memory-service/) started as a caller's workflow starts it: its
own process on 127.0.0.1, printing its address."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "examples" / "memory-service" / "memory_service.py"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def example_service(*args: str, port: int = 0) -> Iterator[str]:
    """The service running with these arguments, on `port` (0: a free one); yields its base URL."""
    command = [sys.executable, str(SERVICE), "--port", str(port), *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), f"the service printed {url!r}"
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()
