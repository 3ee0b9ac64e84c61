"""Fixtures: the sample project (ingested once per module) and each registered backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.models.project import Project
from harness.suites.projects import ingest
from tests.projects.sample import write_sample


@pytest.fixture(scope="module")
def sample_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_sample(tmp_path_factory.mktemp("sample") / "orchard")


@pytest.fixture(scope="module")
def sample(sample_root: Path) -> Project:
    return ingest(sample_root)
