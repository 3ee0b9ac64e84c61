"""Whose definitions a dataset run is scored by: the harness's, or Popoto's (`metrics/popoto.py`).

Under Popoto's rules a run stores one record per turn (its bare text, blank turns skipped),
takes `depth` records per question, ranks them in the dataset's gold unit as Popoto's harness
does, asks abstention questions against the sessions they name, and scores Popoto's recall@k;
a question without gold is not asked but counts 0 in Popoto's mean (`popoto_means`). The
harness's own measures are reported too, over the same rankings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from harness.backends.base import Hit
from harness.errors import HarnessError
from harness.evaluation.kinds.haystack.results import QuestionResult, QuestionStatus
from harness.metrics import mean_defined
from harness.metrics.popoto import POPOTO_RULES, PopotoRules, popoto_ranking, popoto_recall
from harness.models.haystack import Document, Granularity, Question
from harness.pipeline.haystack import by_session


class HaystackRulesName(StrEnum):
    HARNESS = "harness"
    POPOTO = "popoto"
    POPOTO_PRE_514 = "popoto@pre-514"
    POPOTO_PRE_438 = "popoto@pre-438"


NO_GOLD = "no gold evidence: Popoto scores it 0 and keeps it in its mean"
"""Why a question is not asked under Popoto's rules (its score is 0 whatever is retrieved)."""


def dataset_rules(name: HaystackRulesName, dataset: str) -> PopotoRules | None:
    """Popoto's rules for `dataset` (its LongMemEval-S definitions serve every LongMemEval file),
    None for the harness's; a dataset Popoto defines nothing for is a one-line error (exit 2)."""
    if name is HaystackRulesName.HARNESS:
        return None
    key = "locomo" if dataset == "locomo" else "longmemeval-s" if dataset.startswith("longmemeval") else None
    if key is None:
        raise HarnessError(
            f"--haystack-rules {name.value}: Popoto defines LongMemEval and LoCoMo only, not {dataset!r}"
        )
    return POPOTO_RULES[(name.value, key)]


def gold_level(rules: PopotoRules) -> Granularity:
    return Granularity(rules.gold_unit.value)


def popoto_gold(rules: PopotoRules, question: Question) -> frozenset[str]:
    """The ids Popoto scores a question against: its gold in the dataset's unit, and for an
    abstention question the sessions it names."""
    level = gold_level(rules)
    if question.abstention and rules.abstention_gold and level is Granularity.SESSION:
        return question.abstention_gold
    return question.gold(level)


def bare_turns(documents: Sequence[Document]) -> list[tuple[Document, str]]:
    """What Popoto's harness stores: each turn's text stripped, blank turns left out."""
    return [(doc, text) for doc in documents if (text := doc.text.strip())]


def cut(rules: PopotoRules, turns: Sequence[Hit], session_of: Mapping[str, str]) -> dict[Granularity, list[Hit]]:
    """The first `depth` records, and the sessions they rank (each by its best turn, so by first place)."""
    kept = list(turns[: rules.depth])
    return {Granularity.TURN: kept, Granularity.SESSION: by_session(kept, session_of, rules.depth)}


def popoto_scores(
    rules: PopotoRules, turns: Sequence[Hit], session_of: Mapping[str, str], gold: frozenset[str]
) -> dict[str, float]:
    """Popoto's recall@k of one question, on its ranking of the records returned."""
    records = [(session_of[hit.id], hit.id) for hit in turns[: rules.depth]]
    ranking = popoto_ranking(rules, records, gold)
    qrels = dict.fromkeys(gold, 1)
    return {m.name: m(ranking, qrels) for m in (popoto_recall(rules.recall, k) for k in rules.cutoffs)}


def measure_names(rules: PopotoRules) -> list[str]:
    return [popoto_recall(rules.recall, k).name for k in rules.cutoffs]


def popoto_means(rules: PopotoRules, results: Sequence[QuestionResult]) -> dict[str, dict[str, float | None]]:
    """Per mode, Popoto's mean of each recall over every question whose scenario ran: the asked
    ones, and each not asked for want of gold at 0 (errors are left out, as Popoto's failed runs)."""
    level = gold_level(rules)
    unasked = sum(r.status is QuestionStatus.SKIPPED and r.reason == NO_GOLD for r in results)
    modes = dict.fromkeys(r.mode for r in results if r.mode is not None)
    means: dict[str, dict[str, float | None]] = {}
    for mode in modes:
        asked = [r for r in results if r.mode is mode and r.status is QuestionStatus.OK]
        scored = [lv.metrics for r in asked for lv in r.levels if lv.level is level]
        means[str(mode)] = {
            name: mean_defined([*(m[name] for m in scored), *([0.0] * unasked)]) for name in measure_names(rules)
        }
    return means


def rules_record(rules: PopotoRules, reference: bool) -> dict[str, Any]:
    """The rules as a report records them (`reference`: the reference pipeline keeps its own index text)."""
    stored_text = (
        rules.stored_text if not reference else "the reference pipeline's own turn index (speaker: text, neighbours)"
    )
    return {
        "name": rules.name,
        "dataset": rules.dataset,
        "gold_unit": rules.gold_unit.value,
        "recall": rules.recall.value,
        "ranking": rules.ranking.value,
        "depth": rules.depth,
        "cutoffs": list(rules.cutoffs),
        "abstention_gold": rules.abstention_gold,
        "without_gold_in_mean": rules.without_gold_in_mean,
        "stored_text": stored_text,
    }
