"""Running the real `harness` console script against faults: subprocesses, generated suites, containers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

HARNESS = Path(sys.executable).with_name("harness")
ROOT = Path(__file__).resolve().parents[2]


WIDE = "𝔪"
"""4 bytes in UTF-8: the byte limits of the engines are reached soonest with it."""


def kill_while(process: subprocess.Popen[str], found: Callable[[], T | None], within: float) -> T:
    """SIGKILL `process` at a moment `found()` holds, and return what it found.

    A run drops each namespace when its case ends, so a check made while it runs can be stale by the
    time a kill lands: the process is frozen (SIGSTOP) first, `found()` asked again, and only then killed.
    """
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            out, err = process.communicate()
            raise AssertionError(f"the run ended (rc {process.returncode}) before it could be killed:\n{out}\n{err}")
        if found() is not None:
            process.send_signal(signal.SIGSTOP)
            while process_state(process.pid) not in {"T", "Z"}:
                time.sleep(0.005)
            time.sleep(0.1)  # a command sent before the stop reaches the server
            if (there := found()) is not None:
                process.kill()
                process.communicate(timeout=60)
                return there
            process.send_signal(signal.SIGCONT)
        time.sleep(0.02)
    process.kill()
    process.communicate(timeout=60)
    raise AssertionError(f"nothing to kill the run on appeared within {within:.0f} s")


def process_state(pid: int) -> str:
    """The state letter /proc gives a process: T once a SIGSTOP has landed."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def env(**extra: str) -> dict[str, str]:
    """This interpreter's environment with this checkout first on the path (the tree under test)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", **extra}


def run(
    command: list[str], cwd: Path, timeout: float, environment: dict[str, str] | None = None, **popen: Any
) -> subprocess.CompletedProcess[str]:
    """Run `command` against this checkout, capturing its text output; the caller checks the exit code."""
    return subprocess.run(
        command,
        cwd=cwd,
        env=environment or env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **popen,
    )


def harness(*args: str, cwd: Path, timeout: float = 300, **extra: str) -> subprocess.CompletedProcess[str]:
    return run([str(HARNESS), *args], cwd, timeout, env(**extra))


def start(*args: str, cwd: Path, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(HARNESS), *args],
        cwd=cwd,
        env=env(**extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def one_line(stderr: str) -> str:
    """The single stderr line a failure must print; no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one stderr line, got {len(lines)}:\n{stderr}"
    return lines[0]


def write_suite(folder: Path, cases: int, memories: int | None = None) -> Path:
    """A native suite of `memories` memories named `item <i>` and `cases` static cases, each naming one
    memory (no two names are one edit apart on a word of 5+ letters, so every case passes on bm25)."""
    memories = memories or cases
    folder.mkdir(parents=True)
    corpus = {
        "default_user": "u-ana",
        "memories": [
            {"id": f"m-{i}", "user": "u-ana", "type": "entity", "name": f"item {i}", "scopes": ["domain:code"]}
            for i in range(memories)
        ],
    }
    static = {
        "cases": [
            {
                "id": f"s-{i}",
                "scopes": ["domain:code"],
                "query": f"tell me about item {i % memories}",
                "expect": {"relevant": {"should_only_include": [f"m-{i % memories}"]}},
            }
            for i in range(cases)
        ]
    }
    (folder / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (folder / "static.json").write_text(json.dumps(static), encoding="utf-8")
    return folder


def wait_for(condition: Callable[[], object], timeout: float, what: str, interval: float = 0.2) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def reports(folder: Path, pattern: str = "*.json") -> list[Path]:
    return sorted(p for p in folder.glob(pattern) if not p.name.startswith("."))


class Watched:
    """A harness subprocess whose progress bars are readable while it runs (rich told it is on a terminal)."""

    def __init__(self, *args: str, cwd: Path, **extra: str):
        import threading

        self.process = subprocess.Popen(
            [str(HARNESS), *args],
            cwd=cwd,
            env=env(TTY_COMPATIBLE="1", COLUMNS="200", **extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
        self._readers = [
            threading.Thread(target=self._read, args=(name,), daemon=True) for name in ("stdout", "stderr")
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, name: str) -> None:
        stream = getattr(self.process, name)
        while chunk := stream.buffer.read1(65536):
            self._chunks[name].append(chunk)

    @property
    def stderr(self) -> str:
        return b"".join(self._chunks["stderr"]).decode("utf-8", "replace")

    @property
    def stdout(self) -> str:
        return b"".join(self._chunks["stdout"]).decode("utf-8", "replace")

    def progress(self, label: str) -> int:
        """The highest `done` of the `label ... done/total` progress bar printed so far."""
        import re

        plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", " ", self.stderr)
        found = re.findall(rf"{re.escape(label)}\D*?(\d+)/(\d+)", plain)
        return max((int(done) for done, _ in found), default=0)

    def wait_progress(self, label: str, at_least: int, timeout: float = 180) -> None:
        def reached() -> bool:
            assert self.process.poll() is None, f"exited {self.process.returncode} early:\n{self.stderr[-3000:]}"
            return self.progress(label) >= at_least

        wait_for(reached, timeout, f"{at_least} done on the {label!r} progress bar")

    def __enter__(self) -> Watched:
        return self

    def __exit__(self, *_: object) -> None:
        """Whatever the test's outcome: the process is gone, and so are its containers."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        remove_containers_of(self.process.pid)

    def finish(self, timeout: float = 120) -> int:
        code = self.process.wait(timeout=timeout)
        for reader in self._readers:
            reader.join(timeout=10)
        return code

    def harness_lines(self) -> list[str]:
        """The CLI's own stderr lines (`harness: ...`), without progress-bar redraws."""
        import re

        plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", self.stderr)
        return [line.strip() for line in plain.splitlines() if line.strip().startswith("harness:")]


def containers_of(pid: int) -> list:
    """Containers (running or not) labelled as owned by the harness process `pid`."""
    import docker

    from harness.containers.labels import PID

    client = docker.from_env()
    try:
        return client.containers.list(all=True, filters={"label": f"{PID}={pid}"})
    finally:
        client.close()


def remove_containers_of(pid: int) -> None:
    """What a failed test's harness process left behind (never another run's containers)."""
    for container in containers_of(pid):
        container.remove(force=True, v=True)
