"""A system's own log lines (issue 34): mem0 and Popoto log warnings through Python's `logging`,
which, with no handler, prints them on stderr as they are, between the harness's lines. A run now
routes them through its output: quiet by default, `harness: log: LOGGER: MESSAGE` with `-v`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from harness.pipeline.settings import Mode
from harness.systems import registry
from harness.systems.protocol import Found, Opening, Query, Record, SystemInfo, SystemSpec
from tests.conftest import Main
from tests.faults.helpers import write_suite

LOG = logging.getLogger("toy_system.store")
SAID = "toy store: no index configured, searching nothing"


class _Toy:
    """A system that finds nothing and, as a library would, logs a warning on each search."""

    def __init__(self, opening: Opening) -> None:  # noqa: ARG002 - what the protocol passes
        self.info = SystemInfo("toy", "1", frozenset(), (Mode.BM25,))

    def reset(self) -> None:
        pass

    def add(self, records: Sequence[Record]) -> None:
        pass

    def search(self, query: Query, mode: Mode) -> list[Found]:  # noqa: ARG002
        LOG.warning(SAID)
        return []

    def close(self) -> None:
        pass


TOY = SystemSpec("toy", _Toy, "finds nothing, logs a warning per search")  # type: ignore[arg-type]


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint("toy", "tests.faults.test_system_logs:TOY", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.GROUP else [])


@pytest.mark.usefixtures("toy")
@pytest.mark.parametrize("shown", [False, True])
def test_a_systems_log_lines_are_quiet_unless_shown(
    harness_main: Main, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shown: bool
) -> None:
    suite = write_suite(tmp_path / "suite", 2)
    flags = ["-v"] if shown else []
    # the root logger as a `harness` process has it: without pytest's capturing handlers, a record
    # no handler takes reaches Python's last-resort printer (stderr)
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    done = harness_main("run", "-s", str(suite), "-m", "bm25", "--system", "toy", "--out", "out", *flags, cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # it finds nothing: failed cases, no error
    logged = [line for line in done.stderr.splitlines() if SAID in line]
    if shown:
        assert logged, done.stderr
        assert set(logged) == {f"harness: log: toy_system.store: {SAID}"}, done.stderr
    else:
        assert logged == [], done.stderr
    assert SAID not in done.stdout
    assert logging.getLogger().handlers == [], "the run's handler is gone with the run"
