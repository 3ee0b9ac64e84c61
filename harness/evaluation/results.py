"""What every kind's result rows share: an error recorded with whether the server went with it,
and a verdict with its reasons."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Self

from harness.backends.failures import connection_lost
from harness.messages import error_text


class Errs:
    """A result row that records an exception as its error, and whether the server went with it:
    the run goes on, and the runner's verdict counts it."""

    error: str | None
    backend_lost: bool

    def fail_with(self, exc: Exception) -> Self:
        self.error = error_text(exc)
        self.backend_lost = connection_lost(exc)
        return self

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """A report's record of the row read back (`to_json`'s inverse; fields a report adds beside
        the row's own, as per-turn ratios, are left out)."""
        own = {f.name for f in fields(cls)}  # type: ignore[arg-type]  # every row is a dataclass
        return cls(**{name: value for name, value in data.items() if name in own})


class Fails(Errs):
    """A result row with a verdict and its reasons: an error also fails it, as its first reason."""

    reasons: list[str]
    passed: bool

    def fail_with(self, exc: Exception) -> Self:
        super().fail_with(exc)
        self.reasons.append(f"error: {self.error}")
        self.passed = False
        return self
