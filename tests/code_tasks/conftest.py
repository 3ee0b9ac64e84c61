"""Fixtures: the ledger example (Go + TypeScript, nano-brain's task format) ingested once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.backends import registry
from harness.backends.base import Backend
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


@pytest.fixture(
    scope="module",
    params=[pytest.param(d.name, id=d.name, marks=getattr(pytest.mark, d.name)) for d in registry.DESCRIPTORS],
)
def backend(request: pytest.FixtureRequest, server_url) -> Iterator[Backend]:
    """Each backend; a server backend runs only when selected (`--backend postgres`)."""
    name = request.param
    engine = registry.connect(name, server_url(name) if registry.descriptor(name).server else None)
    yield engine
    engine.close()
