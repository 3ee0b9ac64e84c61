"""One run of each kind of case, shared by the report page tests (each run takes seconds)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .browser import Browser, chromium_path
from .pages import write_reports


@pytest.fixture(scope="session")
def report_of_kind(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per kind, the JSON report of a bm25 run on embedded with failed items; its page lies beside it."""
    return write_reports(tmp_path_factory.mktemp("every-kind"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    binary = chromium_path()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: CI must install it (apt-get install -y chromium)")
        pytest.skip("chromium is not installed here (apt-get install -y chromium); CI fails instead")
    with Browser(binary) as opened:
        yield opened


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("HARNESS_TEST_ARTIFACTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder
