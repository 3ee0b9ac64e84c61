"""Popoto's dataset definitions: how its own harness scores LongMemEval-S and LoCoMo retrieval.

Its published tables come from `tests/benchmarks/` in its repository (docs/peer-rules.md). They
differ from the datasets' papers, and from the harness, in what a record stands for in the
ranking, what recall@k means, which questions enter the mean and what text is stored; each is a
field of `PopotoRules`. Two of those changed upstream (issues #433/#438: recall from fractional
to any-hit; #514: the ranking made gold-blind), so each published table is named by the rules
it was made under.
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


class RecallDefinition(StrEnum):
    ANY_HIT = "any-hit"
    """1 when any gold id is in the top k (from #438 on)."""
    FRACTIONAL = "fractional"
    """Gold ids in the top k over all gold ids, capped at 1 (before #438)."""


class RankingRule(StrEnum):
    UNIT = "unit"
    """Each record stands for its id in the dataset's gold unit (from #514 on)."""
    GOLD_AWARE = "gold-aware"
    """Each record stands for whichever of its ids is gold, else its session (before #514)."""


@dataclass(frozen=True)
class PopotoRules:
    name: str
    dataset: str
    gold_unit: GoldUnit
    recall: RecallDefinition
    ranking: RankingRule
    depth: int = 20
    """Records the assembler returns per question (`MAX_ITEMS`)."""
    cutoffs: tuple[int, ...] = (1, 5, 10)
    without_gold_in_mean: bool = True
    """A question without gold ids is scored (0) and stays in every mean."""
    abstention_gold: bool = True
    """LongMemEval's `_abs` questions are scored against their `answer_session_ids`; LoCoMo's
    adversarial ones against their `evidence` (the harness leaves both out)."""
    stored_text: str = (
        "each turn's text stripped, one record per turn; no role, speaker, date or session text; blank turns skipped"
    )


def _rules(name: str, recall: RecallDefinition, ranking: RankingRule) -> tuple[PopotoRules, ...]:
    return (
        PopotoRules(name, "longmemeval-s", GoldUnit.SESSION, recall, ranking),
        PopotoRules(name, "locomo", GoldUnit.TURN, recall, ranking),
    )


POPOTO_RULES: Mapping[tuple[str, str], PopotoRules] = MappingProxyType(
    {
        (r.name, r.dataset): r
        for r in (
            *_rules("popoto", RecallDefinition.ANY_HIT, RankingRule.UNIT),
            *_rules("popoto@pre-514", RecallDefinition.ANY_HIT, RankingRule.GOLD_AWARE),
            *_rules("popoto@pre-438", RecallDefinition.FRACTIONAL, RankingRule.GOLD_AWARE),
        )
    }
)


def popoto_ranking(rules: PopotoRules, records: Sequence[tuple[str, str]], gold: frozenset[str]) -> tuple[str, ...]:
    """The ids Popoto scores for records returned in order, each a (session id, turn id) pair,
    each id kept at its first place.

    Under the gold-aware rule a turn-gold dataset collapses every non-gold turn of a session into
    one entry, which lifts the gold turns' ranks; on session gold both rules agree.
    """
    ranking: list[str] = []
    for session, turn in records:
        if rules.ranking is RankingRule.UNIT:
            chosen = [session if rules.gold_unit is GoldUnit.SESSION else turn]
        else:
            chosen = [i for i in (session, turn) if i in gold] or [session]
        ranking.extend(i for i in chosen if i not in ranking)
    return tuple(ranking)


def popoto_recall_at(definition: RecallDefinition, ranking: Ranking, qrels: Qrels, k: int) -> float:
    """Popoto's `recall_at_k` (tomcounsell/popoto `tests/benchmarks/metrics/retrieval.py`): any-hit
    since #438 (1.0 when a gold id is in the top k), and before it, at 273b491, fractional:
    `min(1.0, hits / len(relevant))` over the top k; 0.0 for k <= 0, no gold or an empty ranking,
    and such a question stays in Popoto's mean."""
    check_k(k)
    relevant = relevant_ids(qrels)
    if not ranking or not relevant:
        return 0.0
    hits = sum(doc in relevant for doc in ranking[:k])
    if definition is RecallDefinition.ANY_HIT:
        return float(hits > 0)
    return min(1.0, hits / len(relevant))


def popoto_recall(definition: RecallDefinition, k: int) -> Measure:
    found = "1 when any gold id is" if definition is RecallDefinition.ANY_HIT else "the fraction of the gold ids"
    return Measure(
        name=f"popoto_{definition.value}_recall@{k}",
        cutoff=k,
        function=partial(popoto_recall_at, definition, k=k),
        definition=f"Popoto's {definition.value} recall@{k}: {found} in the top {k} of its ranking; 0 without gold, kept in the mean",
        label=f"Popoto R@{k}",
        ir_measures=None,
    )
