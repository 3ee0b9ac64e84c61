from __future__ import annotations

from typing import Any

import pytest

from .builders import valid_suite


@pytest.fixture
def suite_data() -> dict[str, Any]:
    """A fresh copy of the valid suite, for a test to break one thing in."""
    return valid_suite()
