"""Fixtures: the ledger example (Go + TypeScript, nano-brain's task format) ingested once."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.models.project import Project
from harness.resources import data_root
from harness.suites.projects import ingest
from tests.projects.conftest import backend  # noqa: F401 - the same backend fixture

LEDGER = data_root() / "cases" / "code-tasks" / "nano-brain-format" / "ledger"
TASK_FILE = LEDGER / "benchmarks" / "capability" / "dataset.json"


@pytest.fixture(scope="session")
def ledger_root() -> Path:
    return LEDGER


@pytest.fixture(scope="session")
def ledger() -> Project:
    return ingest(LEDGER)
