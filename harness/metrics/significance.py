"""Whether two runs differ on the items they share: a paired randomization (sign-flip) test.

Under the null hypothesis the two scores of an item are exchangeable, so each per-item difference
is as likely negative as positive. The p-value is the share of sign assignments whose mean
difference is at least as far from zero as the observed one (two-sided): every assignment when
there are few items, else `ROUNDS` random ones drawn with a fixed seed, so a comparison always
prints the same p-value. This is the test Smucker, Allan and Carterette (CIKM 2007) recommend
for IR evaluation, and what `ranx.compare`'s "fisher" test computes.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ROUNDS = 10_000
SEED = 0
EXACT_UP_TO = 12
"""Items up to which every one of the 2^n sign assignments is enumerated."""
ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class Paired:
    items: int
    mean_first: float
    mean_second: float
    p_value: float

    @property
    def difference(self) -> float:
        return self.mean_second - self.mean_first

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA


def paired_test(first: Sequence[float], second: Sequence[float]) -> Paired:
    """The randomization test of `second - first` over paired scores (one pair per shared item)."""
    if len(first) != len(second) or not first:
        raise ValueError("paired scores: the same positive number of items on both sides")
    diffs = np.asarray(second, dtype=float) - np.asarray(first, dtype=float)
    observed = abs(diffs.mean())
    if not diffs.any():
        p_value = 1.0
    elif len(diffs) <= EXACT_UP_TO:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(diffs))))
        p_value = float(np.mean(np.abs((signs * diffs).mean(axis=1)) >= observed - 1e-12))
    else:
        signs = np.random.default_rng(SEED).choice((1.0, -1.0), size=(ROUNDS, len(diffs)))
        extreme = np.sum(np.abs((signs * diffs).mean(axis=1)) >= observed - 1e-12)
        p_value = float((extreme + 1) / (ROUNDS + 1))
    return Paired(len(diffs), float(np.mean(first)), float(np.mean(second)), p_value)
