"""Popoto's dataset definitions: how its own harness scores LongMemEval-S and LoCoMo retrieval.

Its published tables (`tests/benchmarks/` in its repository; docs/peer-rules.md) differ from the
datasets' papers in four places, each a field of `PopotoRules`: recall@k is the fraction of the
gold ids found (not "any found"), scored on a ranking built with knowledge of the gold ids; the
assembler returns 20 records; every question is kept (LongMemEval's abstention questions with
their answer sessions as gold, LoCoMo's adversarial ones with no gold, scoring 0); and the stored
text is the bare turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from types import MappingProxyType

from harness.metrics.common import check_k, relevant_ids
from harness.metrics.measures import Measure, Qrels, Ranking


class GoldUnit(StrEnum):
    SESSION = "session"
    TURN = "turn"


@dataclass(frozen=True)
class PopotoRules:
    name: str
    dataset: str
    gold_unit: GoldUnit
    depth: int
    """Records the assembler returns per question (`MAX_ITEMS`)."""
    cutoffs: tuple[int, ...]
    keeps_unanswerable: bool
    """Questions without evidence stay in the mean (they score 0 on recall)."""
    abstention_gold: bool
    """LongMemEval's `_abs` questions are scored against their `answer_session_ids`."""
    stored_text: str


POPOTO_RULES: Mapping[str, PopotoRules] = MappingProxyType(
    {
        r.dataset: r
        for r in (
            PopotoRules(
                name="popoto",
                dataset="longmemeval-s",
                gold_unit=GoldUnit.SESSION,
                depth=20,
                cutoffs=(1, 5, 10),
                keeps_unanswerable=True,
                abstention_gold=True,
                stored_text="each turn's content, stripped, one record per turn; no role, date or session text; blank turns skipped",
            ),
            PopotoRules(
                name="popoto",
                dataset="locomo",
                gold_unit=GoldUnit.TURN,
                depth=20,
                cutoffs=(1, 5, 10),
                keeps_unanswerable=True,
                abstention_gold=False,
                stored_text="each turn's text, else its image caption, stripped; no speaker or date; turns with neither skipped",
            ),
        )
    }
)


def popoto_ranking(records: Sequence[tuple[str, str]], gold: frozenset[str]) -> tuple[str, ...]:
    """The ids Popoto scores for records returned in order, each a (session id, turn id) pair.

    A record stands for its gold id where it has one (its session or its turn), else for its
    session; each id is kept at its first place. So on a turn-gold dataset every non-gold turn
    of one session collapses into one entry, which lifts the gold turns' ranks.
    """
    ranking: list[str] = []
    for session, turn in records:
        matching = [i for i in (session, turn) if i in gold]
        for chosen in matching or [session]:
            if chosen not in ranking:
                ranking.append(chosen)
    return tuple(ranking)


def popoto_recall_at(ranking: Ranking, qrels: Qrels, k: int) -> float:
    """Popoto's `recall_at_k`: gold ids among the top k over all gold ids, capped at 1; 0.0 with
    no gold or an empty ranking (such a question stays in Popoto's mean)."""
    check_k(k)
    relevant = relevant_ids(qrels)
    if not ranking or not relevant:
        return 0.0
    return min(1.0, sum(doc in relevant for doc in ranking[:k]) / len(relevant))


def popoto_recall(k: int) -> Measure:
    return Measure(
        name=f"popoto_recall@{k}",
        cutoff=k,
        function=partial(popoto_recall_at, k=k),
        definition=(
            f"Popoto's recall@{k}: gold ids in the top {k} of its gold-aware ranking over all gold ids, "
            "0 for a question without gold (kept in the mean)"
        ),
        label=f"Popoto R@{k}",
        ir_measures=None,
    )
