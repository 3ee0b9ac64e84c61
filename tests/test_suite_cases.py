"""Every item of the selected suites (default: the built-in suite of each kind) on each selected
backend and mode; which must pass is the plugin's rule (docs/pytest-plugin.md)."""

from harness.pytest_plugin.items import ItemParam


def test_item(harness_item: ItemParam, harness_check) -> None:
    harness_check(harness_item)
