"""Cross-check the ranked metrics against trec_eval (ir_measures' pytrec_eval provider) to 1e-6."""

from __future__ import annotations

import ir_measures
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import RR, P, R, Success, nDCG

from harness.metrics import ndcg_at, precision_at, recall_at, reciprocal_rank, success_at

from .strategies import cutoffs, has_relevant, qrels, rankings

TOLERANCE = 1e-6

# Every query needs at least one judgement (grade 0 allowed): pytrec_eval drops queries absent
# from the qrels, so an empty qrels dict would test nothing.
queries = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q4"]),
    st.tuples(rankings, qrels.filter(bool)),
    min_size=1,
)


def as_run(ranking: list[str]) -> dict[str, float]:
    """Scores strictly decreasing with rank, so trec_eval's re-sort cannot reorder anything.

    pytrec_eval keeps scores as 32-bit floats; small integers are exact there, so no two
    scores can collapse into a tie (a tie would be broken by docno descending).
    """
    return {doc: float(len(ranking) - position) for position, doc in enumerate(ranking)}


@settings(max_examples=200, deadline=None)
@given(queries, st.sets(cutoffs, min_size=1, max_size=3))
def test_matches_pytrec_eval(cases: dict[str, tuple[list[str], dict[str, int]]], ks: set[int]) -> None:
    measures = [RR] + [m @ k for k in sorted(ks) for m in (P, R, Success, nDCG)]
    ours: dict[tuple[str, str], float] = {}
    for qid, (ranking, judged) in cases.items():
        ours[qid, str(RR)] = reciprocal_rank(ranking, judged)
        for k in ks:
            ours[qid, str(P @ k)] = precision_at(ranking, judged, k)
            ours[qid, str(Success @ k)] = success_at(ranking, judged, k)
            ours[qid, str(nDCG @ k)] = ndcg_at(ranking, judged, k)
            if has_relevant(judged):
                ours[qid, str(R @ k)] = recall_at(ranking, judged, k)

    judgements = {qid: judged for qid, (_, judged) in cases.items()}
    run = {qid: as_run(ranking) for qid, (ranking, _) in cases.items()}
    evaluator = ir_measures.pytrec_eval.evaluator(measures, judgements)
    theirs = {(m.query_id, str(m.measure)): m.value for m in evaluator.iter_calc(run)}

    # Every value we compute has a trec_eval counterpart (R@k only where something is relevant).
    assert ours.keys() <= theirs.keys()
    mismatches = {key: (ours[key], theirs[key]) for key in ours if abs(ours[key] - theirs[key]) > TOLERANCE}
    assert not mismatches
