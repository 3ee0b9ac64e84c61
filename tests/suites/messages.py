"""Checks on loader error messages shared by the native and Tenure suite tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.errors import CaseFileError


def load_error(load: Callable[[Path], Any], path: Path) -> str:
    """The one-line message `load(path)` fails with (a user error: exit code 2)."""
    with pytest.raises(CaseFileError) as info:
        load(path)
    message = str(info.value)
    assert "\n" not in message, f"error spans several lines: {message!r}"
    assert info.value.exit_code == 2
    return message


def assert_names(message: str, *parts: str) -> None:
    """Paths must occur in the message; every other part must occur outside the paths (the
    tmp_path folder names contain the test's name, which would otherwise match anything)."""
    outside_paths = re.sub(r"/[^\s:',()]+", "<path>", message)
    for part in parts:
        where = message if part.startswith("/") else outside_paths
        assert part in where, f"{part!r} not in {message!r}"
