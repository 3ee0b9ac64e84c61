"""Fixtures: the ledger example (Go + TypeScript, nano-brain's task format) ingested once."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.models.project import Project
from harness.resources import data_root
from harness.suites.projects import ingest

LEDGER = data_root() / "cases" / "code-tasks" / "nano-brain-format" / "ledger"
TASK_FILE = LEDGER / "benchmarks" / "capability" / "dataset.json"


@pytest.fixture(scope="session")
def ledger_root() -> Path:
    return LEDGER


@pytest.fixture(scope="session")
def ledger() -> Project:
    return ingest(LEDGER)
