"""The lifecycle scores that are trec_eval's (P@5 over 5, R@5, reciprocal rank) agree with
trec_eval (ir_measures' pytrec_eval provider) on the built-in post-consolidation rankings; the
Mnemonic P@5 is trec_eval's scaled by 5 / min(5, returned)."""

from __future__ import annotations

import ir_measures
import pytest
from ir_measures import RR, P, R

from harness.evaluation.kinds.lifecycle.spec import LifecycleKind
from tests.lifecycle.helpers import run_kind


def test_trec_measures_agree_with_trec_eval(builtin_suite, committed_embedder, embedded) -> None:
    results, report = run_kind(LifecycleKind(builtin_suite, committed_embedder), embedded)
    for mode, (run, qrels) in report.trec.items():
        # ranks as scores (strictly decreasing): trec_eval's float32 re-sort cannot reorder them
        ranked = {q: {doc: float(len(hits) - i) for i, doc in enumerate(hits)} for q, hits in run.items()}
        theirs = {
            (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc([P @ 5, R @ 5, RR], qrels, ranked)
        }
        for result in (r for r in results if r.mode == mode and not r.raw):
            for number, query in enumerate(result.queries, 1):
                qid, ours = f"{result.scenario}#{number}", query["scores_after"]
                assert ours["trec_precision"] == pytest.approx(theirs.get((qid, "P@5"), 0.0), abs=1e-6)
                assert ours["recall"] == pytest.approx(theirs.get((qid, "R@5"), 0.0), abs=1e-6)
                assert ours["mrr"] == pytest.approx(theirs.get((qid, "RR"), 0.0), abs=1e-6)
                returned = len(query["after"])
                if returned:
                    assert ours["precision"] == pytest.approx(ours["trec_precision"] * 5 / min(5, returned))
