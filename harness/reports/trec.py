"""Runs and qrels as TREC files, so trec_eval, ir_measures or ranx can check our numbers.

Run lines are `qid Q0 docid rank score tag`, qrels lines `qid 0 docid relevance`. The score
column is `n + 1 - rank` for a query's n ranked docs, not the engine's score (that is in the JSON
report): trec_eval keeps scores as 32-bit floats and breaks ties by doc id descending, so close
or equal engine scores would rank there otherwise than by `rank_key`. Written this way, every tool
that sorts by score ranks exactly as the harness does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from harness.metrics.evaluate import QrelsByQuery, RunByQuery, ranked_ids
from harness.reports.writer import write_run_files


def _check_id(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value):
        raise ValueError(f"{what} {value!r} cannot be written to a TREC file (empty or has whitespace)")
    return value


def trec_run(run: RunByQuery, tag: str) -> str:
    """The run in TREC format, queries in id order, ranks from 1."""
    _check_id(tag, "run tag")
    lines = []
    for query in sorted(run):
        ranking = ranked_ids(run[query])
        for rank, doc in enumerate(ranking, start=1):
            lines.append(
                f"{_check_id(query, 'query id')} Q0 {_check_id(doc, 'doc id')} {rank} {len(ranking) + 1 - rank} {tag}"
            )
    return "".join(line + "\n" for line in lines)


def trec_qrels(qrels: QrelsByQuery) -> str:
    """The judgements in TREC format, queries and docs in id order."""
    return "".join(
        f"{_check_id(query, 'query id')} 0 {_check_id(doc, 'doc id')} {qrels[query][doc]}\n"
        for query in sorted(qrels)
        for doc in sorted(qrels[query])
    )


def write_trec(out_dir: Path, stem: str, runs: Mapping[str, tuple[RunByQuery, QrelsByQuery]]) -> list[Path]:
    """`<stem>-<key>-<UTC time>.trec` and `.qrels` per run, with `-latest` copies."""
    paths: list[Path] = []
    for key, (scores, qrels) in runs.items():
        contents = {"trec": trec_run(scores, f"harness-{key}"), "qrels": trec_qrels(qrels)}
        paths += write_run_files(out_dir, f"{stem}-{key}", contents)
    return paths
