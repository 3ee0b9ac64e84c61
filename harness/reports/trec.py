"""Runs and qrels as TREC files, so trec_eval, ir_measures or ranx can check our numbers.

Run lines are `qid Q0 docid rank score tag`, qrels lines `qid 0 docid relevance`. Those tools
re-sort a run by score and break ties their own way (trec_eval: doc id descending), so the score
column is the score rounded to 9 decimals, lowered within a tie by less than 1e-9 per place:
the file then ranks exactly as `rank_key` does, and no written score crosses another score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING

from harness.evaluation.results import CaseResult
from harness.metrics.evaluate import QrelsByQuery, RunByQuery, ranked_ids
from harness.models import TierExpect
from harness.reports.writer import write_run_files

if TYPE_CHECKING:
    from harness.datasets.evaluate import Evaluation


def _check_id(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value):
        raise ValueError(f"{what} {value!r} cannot be written to a TREC file (empty or has whitespace)")
    return value


def _tie_broken(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """(doc, written score) best first: rounded scores, each tie spread evenly below its value."""
    ranked = [(doc, round(scores[doc], 9)) for doc in ranked_ids(scores)]
    out: list[tuple[str, float]] = []
    for score, group in groupby(ranked, key=lambda pair: pair[1]):
        docs = [doc for doc, _ in group]
        out += [(doc, score - place * 1e-9 / len(docs)) for place, doc in enumerate(docs)]
    return out


def trec_run(run: RunByQuery, tag: str) -> str:
    """The run in TREC format, queries in id order, ranks from 1."""
    _check_id(tag, "run tag")
    lines = []
    for query in sorted(run):
        for rank, (doc, score) in enumerate(_tie_broken(run[query]), start=1):
            lines.append(f"{_check_id(query, 'query id')} Q0 {_check_id(doc, 'doc id')} {rank} {score!r} {tag}")
    return "".join(line + "\n" for line in lines)


def trec_qrels(qrels: QrelsByQuery) -> str:
    """The judgements in TREC format, queries and docs in id order."""
    return "".join(
        f"{_check_id(query, 'query id')} 0 {_check_id(doc, 'doc id')} {qrels[query][doc]}\n"
        for query in sorted(qrels)
        for doc in sorted(qrels[query])
    )


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


def dataset_trec(run: Evaluation) -> dict[str, tuple[RunByQuery, QrelsByQuery]]:
    """Per `<mode>-<level>`, every scored question's ranking and its gold set."""
    out: dict[str, tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]] = {}
    for result in run.results:
        for level in result.levels:
            scores, qrels = out.setdefault(f"{result.mode}-{level.level}", ({}, {}))
            scores[result.id] = dict(level.ranking)
            qrels[result.id] = dict.fromkeys(level.gold, 1)
    return dict(out)


def write_trec(out_dir: Path, stem: str, runs: Mapping[str, tuple[RunByQuery, QrelsByQuery]]) -> list[Path]:
    """`<stem>-<key>-<UTC time>.trec` and `.qrels` per run, with `-latest` copies."""
    paths: list[Path] = []
    for key, (scores, qrels) in runs.items():
        contents = {"trec": trec_run(scores, f"harness-{key}"), "qrels": trec_qrels(qrels)}
        paths += write_run_files(out_dir, f"{stem}-{key}", contents)
    return paths
