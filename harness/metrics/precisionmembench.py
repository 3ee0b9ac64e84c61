"""PrecisionMemBench's own measures, as its code defines them (tenurehq/precisionMemBench at
ec8347b358cce1987fb4eff2cebdc0fa46c5e23a, the commit of its published mem0 rows), so a run under its
rules reports the numbers its published rows are made of, not the harness's:

- static precision and recall (`src/retrieval.external.eval.test.ts`): the expected set is
  `shouldOnlyInclude` where the case has one (an empty one included), else `mustInclude` less
  the seed's pinned beliefs of the default user; hits are counted in the relevant list only;
  precision is None when the relevant list and the expected set are both empty, 0 when only the
  relevant list is, else hits / |relevant|; recall is None for an empty expected set;
- session precision, recall and drift (`src/session-retrieval.external.eval.test.ts`): the gold
  set is `shouldOnlyInclude` where the turn has one, else `mustInclude`; hits are counted in the
  relevant list and the pinned facts together; precision is None for an empty relevant list,
  else hits / |relevant|; drift is `1 - precision`, 0 where precision is None;
- pass types (`src/utils/buildRetrievalReport.ts`, `classifyPass`): a passing item is active
  where its precision is above 0, else structural where its category is one of
  `STRUCTURAL_CATEGORIES`, else trivially empty (every session turn has the category
  "Session-level noise isolation", so none of its passes is structural);
- means over the items whose value is not None, and the pass rate passed / items
  (`buildRetrievalSummary`; it rounds them to 4 decimals for display, which is left to the reader).

Ids are sets, as its runners read each tier into a `Set`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from harness.metrics import mean_defined

STRUCTURAL_CATEGORIES = frozenset(
    {
        "Scope disambiguation",
        "Supersession chain exclusion",
        "Type routing and open questions",
        "Budget eviction and capacity",
        "Cross-user isolation",
        "Ranking stability",
        "Persona prelude content",
    }
)
"""`buildRetrievalReport.ts`'s `STRUCTURAL_CATEGORIES` (since f86fe78)."""
SESSION_CATEGORY = "Session-level noise isolation"
"""The category its session runner gives every turn."""


class PmbPassType(StrEnum):
    ACTIVE = "active"
    STRUCTURAL = "structural"
    TRIVIALLY_EMPTY = "trivially_empty"


@dataclass(frozen=True, slots=True)
class PmbItem:
    """One case or turn as PrecisionMemBench measures it."""

    passed: bool
    category: str
    precision: float | None
    recall: float | None
    drift: float | None = None
    """A session turn's drift score; None for a static case."""

    @property
    def pass_type(self) -> PmbPassType | None:
        """`classifyPass`, for a passing item only."""
        if not self.passed:
            return None
        if self.precision is not None and self.precision > 0:
            return PmbPassType.ACTIVE
        if self.category in STRUCTURAL_CATEGORIES:
            return PmbPassType.STRUCTURAL
        return PmbPassType.TRIVIALLY_EMPTY


def static_item(
    *,
    passed: bool,
    category: str,
    should_only_include: Collection[str] | None,
    must_include: Collection[str],
    pinned_in_seed: Collection[str],
    relevant: Collection[str],
) -> PmbItem:
    """A static case's precision and recall (`retrieval.external.eval.test.ts`)."""
    if should_only_include is not None:
        expected = set(should_only_include)
    else:
        expected = set(must_include) - set(pinned_in_seed)
    found = set(relevant)
    hits = len(expected & found)
    if not found:
        precision = None if not expected else 0.0
    else:
        precision = hits / len(found)
    recall = None if not expected else hits / len(expected)
    return PmbItem(passed, category, precision, recall)


def session_item(
    *,
    passed: bool,
    should_only_include: Collection[str] | None,
    must_include: Collection[str],
    relevant: Collection[str],
    pinned: Collection[str],
) -> PmbItem:
    """A session turn's precision, recall and drift (`session-retrieval.external.eval.test.ts`)."""
    gold = set(should_only_include) if should_only_include is not None else set(must_include)
    found, surfaced = set(relevant), set(relevant) | set(pinned)
    hits = len(gold & surfaced)
    recall = None if not gold else hits / len(gold)
    precision = None if not found else hits / len(found)
    drift = 1 - precision if precision is not None else 0.0
    return PmbItem(passed, SESSION_CATEGORY, precision, recall, drift)


def summary(items: Sequence[PmbItem]) -> dict[str, float]:
    """`buildRetrievalSummary`'s numbers: items, passed, pass rate, mean precision and recall, the passes
    by type, and for session turns the mean drift (each mean left out where no item has a value)."""
    passed = [i for i in items if i.passed]
    measures: dict[str, float | None] = {
        "items": float(len(items)),
        "passed": float(len(passed)),
        "pass_rate": len(passed) / len(items) if items else None,
        "precision": mean_defined(i.precision for i in items),
        "recall": mean_defined(i.recall for i in items),
        **{t.value: float(sum(1 for i in passed if i.pass_type is t)) for t in PmbPassType},
        "drift": mean_defined(i.drift for i in items),
    }
    return {name: value for name, value in measures.items() if value is not None}
