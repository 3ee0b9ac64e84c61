"""What a belief run keeps besides its report body: per mode, the score sheets baselines freeze
and the TREC runs and qrels that other tools can check its numbers with."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from harness.evaluation.kinds.beliefs.report import summarize
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.metrics.evaluate import QrelsByQuery, RunByQuery
from harness.models import TierExpect
from harness.models.scoresheet import CaseScore, ScoreSheet


def suite_scores(results: Iterable[CaseResult]) -> dict[str, ScoreSheet]:
    """Per mode, from one backend's belief-suite results: overall the scorecard's pass rate (static
    cases and whole sessions) and mean precision, recall, nDCG and MRR; the same per case category;
    per case (static case or session turn, by `item_id`) whether it passed."""
    by_mode: dict[str, list[CaseResult]] = defaultdict(list)
    for result in results:
        by_mode[result.mode].append(result)
    sheets = {}
    for mode, rows in by_mode.items():
        by_category: dict[str, list[CaseResult]] = defaultdict(list)
        for row in rows:
            if row.category is not None:
                by_category[row.category].append(row)
        sheets[mode] = ScoreSheet(
            overall=_suite_measures(rows),
            categories={name: _suite_measures(group) for name, group in sorted(by_category.items())},
            cases={row.item_id: CaseScore(passed=row.passed) for row in rows},
        )
    return sheets


def _suite_measures(rows: Sequence[CaseResult]) -> dict[str, float]:
    summaries = summarize(rows)
    if len(summaries) != 1:
        raise ValueError(f"one backend's results expected, got {', '.join(s.backend for s in summaries)}")
    summary = summaries[0]
    measures = {
        "pass_rate": summary.pass_rate,
        "precision": summary.mean_precision,
        "recall": summary.mean_recall,
        "ndcg": summary.mean_ndcg,
        "mrr": summary.mrr,
    }
    return {name: value for name, value in measures.items() if value is not None}


def suite_trec(results: Sequence[CaseResult]) -> dict[str, tuple[RunByQuery, QrelsByQuery]]:
    """Per mode, the relevant tier of every case (query `<suite>/<case>[#turn]`) and its expected set.

    Cases that assert no expected relevant set have run lines but no qrels: tools score only
    judged queries, as the suite means leave those cases out.
    """
    by_mode: dict[str, tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]] = {}
    for result in results:
        run, qrels = by_mode.setdefault(result.mode, ({}, {}))
        query = "_".join(f"{result.suite}/{result.item_id}".split())
        run[query] = {r["id"]: r["score"] for r in result.retrieved.get("relevant", [])}
        relevant = result.expected.get("relevant")
        expected = TierExpect.model_validate(relevant).expected if relevant else None
        if expected:
            qrels[query] = dict.fromkeys(expected, 1)
    return dict(by_mode)
