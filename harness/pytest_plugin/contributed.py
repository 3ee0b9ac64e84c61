"""The item test the plugin adds to a session given a `--harness-*` option when none of the session's
tests uses the harness: in a memory-system author's project, `pytest --harness-system http:URL`
collects the harness's items with no test file to write.

Why a module collector of the plugin's own, added in `pytest_collection_modifyitems`: the test is
collected as a test file's is (the plugin's `pytest_generate_tests` parametrizes it, fixtures and
marks apply, the terminal counts its items, `-k`, `-m` and `--deselect` select among them, xdist
workers collect the same items), and the hook sees the whole collection first, so it adds nothing
where a test of the session already requests the items. Nothing is added to the author's paths or
arguments: collecting this file as an argument would need it under the author's rootdir, and a
`pytest_collect_file` hook would run only where the author's paths lead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from harness.pytest_plugin.items import ItemParam

NODE_ID = "harness"
"""The module's node id: its items read `harness::test_item[<kind>-<backend>-<mode>-<item id>]`
(this file lies outside the author's rootdir, where pytest could give it no path of its own)."""


def test_item(harness_item: ItemParam, harness_check: Callable[[ItemParam], None]) -> None:
    harness_check(harness_item)


def items(session: pytest.Session) -> list[pytest.Item]:
    """This module's items, collected through the session as a test file's are."""
    module = pytest.Module.from_parent(session, path=Path(__file__), name=NODE_ID, nodeid=NODE_ID)
    module.obj = sys.modules[__name__]  # imported already: pytest's import by path would put its folder on sys.path
    return list(session.genitems(module))
