"""Fixtures: the sample project (ingested once per module) and each registered backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.backends import registry
from harness.backends.base import Backend
from harness.models.project import Project
from harness.suites.projects import ingest
from tests.projects.sample import write_sample


@pytest.fixture(scope="module")
def sample_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("sample") / "orchard")


@pytest.fixture(scope="module")
def sample(sample_root: Path) -> Project:
    return ingest(sample_root)


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
