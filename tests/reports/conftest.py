"""One run of each kind of case, shared by the report page tests (each run takes seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .pages import write_reports


@pytest.fixture(scope="session")
def report_of_kind(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Per kind, the JSON report of a bm25 run on embedded with failed items; its page lies beside it."""
    return write_reports(tmp_path_factory.mktemp("every-kind"))
