"""Suite formats: one module per format; case files yield a validated `Suite`, public datasets
(`locomo`, `longmemeval`) yield haystack questions (`harness.models.haystack`)."""

from harness.suites.resolve import BUILTIN, load_suite

__all__ = ["BUILTIN", "load_suite"]
