"""Fixtures for container tests: an engine (or a skip), local images, per-test run ids."""

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from harness.backends import registry
from harness.containers import build_images, docker_available, remove_run

ROOT = Path(__file__).resolve().parents[2]
LOCAL_SERVERS = tuple(b for b in registry.default_run() if b in registry.servers())


def require_docker_or_skip() -> None:
    """Skip when no engine answers, unless HARNESS_REQUIRE_DOCKER=1 makes that a failure (CI)."""
    reason = docker_available()
    if reason is None:
        return
    if os.environ.get("HARNESS_REQUIRE_DOCKER") == "1":
        pytest.fail(f"HARNESS_REQUIRE_DOCKER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def local_images(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Local images built once, whichever xdist worker gets here first."""
    require_docker_or_skip()
    with FileLock(tmp_path_factory.getbasetemp().parent / "harness-images.lock"):
        build_images(ROOT, [registry.container_spec(b) for b in LOCAL_SERVERS], progress=lambda _line: None)


@pytest.fixture
def run_id(local_images: None) -> Iterator[str]:  # noqa: ARG001 - a fixture can only depend on the images by naming them
    """A run id of this test alone; whatever it leaves behind is removed."""
    run = f"test-{uuid.uuid4().hex[:10]}"
    yield run
    remove_run(run)
