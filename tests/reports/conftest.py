"""One run of each kind of case, shared by the report page tests (each run takes seconds)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@pytest.fixture
def pages_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each report's page drawn in this process by what the page's child runs (`page_or_note` on the
    report's JSON text): the same page, without a child's start and imports for every report, for
    tests of what the reports say rather than of the child (`test_page_process.py` tests that)."""
    from harness.evaluation import runner
    from harness.reports import envelope
    from harness.reports.html.page import page_or_note

    def draw(report_json: str) -> str:
        return page_or_note(json.loads(report_json))

    @contextmanager
    def page_process() -> Iterator[Callable[[str], str]]:
        yield draw

    monkeypatch.setattr(runner, "page_process", page_process)
    monkeypatch.setattr(envelope, "page_apart", draw)
