"""Suite formats: one module per format, each producing a validated `Suite`."""

from harness.suites.resolve import BUILTIN, load_suite

__all__ = ["BUILTIN", "load_suite"]
