"""Means that skip queries a metric cannot score."""

from __future__ import annotations

import math
from collections.abc import Iterable


def mean_defined(values: Iterable[float | None]) -> float | None:
    """Mean of the non-None values (None marks "not applicable"); None if there are none."""
    defined = [value for value in values if value is not None]
    if not defined:
        return None
    return math.fsum(defined) / len(defined)
