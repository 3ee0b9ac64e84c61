"""Run-level evaluation: qrels and a scored run in, one score per query and measure out.

The run is ranked by the project's one tie-break (`rank_key`), so a ranking read back from a
TREC file or built from a backend's hits is scored the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from harness.metrics.measures import Measure

QrelsByQuery = Mapping[str, Mapping[str, int]]
"""query id -> doc id -> relevance grade (>= 1 relevant)."""
RunByQuery = Mapping[str, Mapping[str, float]]
"""query id -> doc id -> score (higher first)."""


def rank_key(score: float, doc_id: str) -> tuple[float, str]:
    """The one tie-break: score descending (rounded to 9 decimals), then id ascending."""
    return (-round(score, 9), doc_id)


def ranked_ids(scores: Mapping[str, float]) -> list[str]:
    """Doc ids best first by `rank_key`."""
    return sorted(scores, key=lambda doc: rank_key(scores[doc], doc))


def evaluate(qrels: QrelsByQuery, run: RunByQuery, measures: Iterable[Measure]) -> dict[str, dict[str, float]]:
    """Scores per judged query (query id -> measure name -> value), as trec_eval reports them.

    Only queries in `qrels` are scored, and a judged query the run has no line for scores 0, as
    trec_eval does with `-c`.
    """
    chosen = tuple(measures)
    scores: dict[str, dict[str, float]] = {}
    for query, judged in qrels.items():
        ranking = ranked_ids(run.get(query, {}))
        scores[query] = {m.name: m(ranking, judged) for m in chosen}
    return scores
