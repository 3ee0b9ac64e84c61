"""TREC run and qrels files: ir_measures (pytrec_eval) and ranx read what `--trec` writes and get
our numbers for P@k, Recall@k, Success@k, MRR and nDCG@k, per query, to 1e-6."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType

import ir_measures
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.scores import suite_trec
from harness.metrics import Measure, evaluate, measures
from harness.metrics.evaluate import QrelsByQuery, RunByQuery
from harness.metrics.measures import SUITE_MEASURES
from harness.reports.trec import trec_qrels, trec_run
from tests.datasets.builders import BagOfWordsEncoder, locomo_conversation, run_dataset_report

CHECKED = measures(
    [*(f"{family}@{k}" for family in ("precision", "recall", "recall_any", "ndcg") for k in (1, 3, 5, 10)), "mrr"]
)
_CASE_FIELDS = {"precision": "precision", "recall": "recall", "ndcg": "ndcg", "mrr": "reciprocal_rank"}
RANX_NAMES = {"precision": "precision@{k}", "recall": "recall@{k}", "recall_any": "hit_rate@{k}", "ndcg": "ndcg@{k}"}


def _ranx() -> ModuleType:
    """ranx, with its numba kernels run as the plain Python they are written in (numba reads
    DISABLE_JIT as ranx's import decorates them): the same code on a few hundred queries at most,
    where compiling the kernels cost about 65 s of CPU in every fresh environment, CI's included."""
    import numba

    numba.config.DISABLE_JIT = True
    import ranx

    return ranx


def _ranx_name(name: str) -> str:
    family, _, k = name.partition("@")
    return RANX_NAMES[family].format(k=k) if k else "mrr"


def _tools_agree(
    run_file: Path, qrels_file: Path, ours: Mapping[str, Mapping[str, float]], checked: Sequence[Measure] = CHECKED
) -> int:
    """Check every checked measure of every judged query against both tools; returns queries checked.

    trec_eval (and so ir_measures) leaves out a judged query with no run line; we score it 0, as
    `trec_eval -c` does, so a missing value counts as 0.
    """
    qrels = list(ir_measures.read_trec_qrels(str(qrels_file)))
    run = list(ir_measures.read_trec_run(str(run_file)))
    by_tool: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc([ir_measures.parse_measure(m.ir_measures) for m in checked], qrels, run):
        by_tool.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
    ranx = _ranx()
    ranx_qrels = ranx.Qrels.from_file(str(qrels_file), kind="trec")
    ranx_run = ranx.Run.from_file(str(run_file), kind="trec")
    ranx.evaluate(ranx_qrels, ranx_run, [_ranx_name(m.name) for m in checked], make_comparable=True)
    assert ours, "no judged query to compare"
    for query, scores in ours.items():
        for m in checked:
            tool = by_tool.get(query, {}).get(m.ir_measures, 0.0)
            assert scores[m.name] == pytest.approx(tool, abs=1e-6), (query, m.name, "ir_measures")
            assert scores[m.name] == pytest.approx(ranx_run.scores[_ranx_name(m.name)][query], abs=1e-6), (
                query,
                m.name,
                "ranx",
            )
    return len(ours)


def _written(tmp_path: Path, run: RunByQuery, qrels: QrelsByQuery) -> tuple[Path, Path]:
    run_file, qrels_file = tmp_path / "run.trec", tmp_path / "run.qrels"
    run_file.write_text(trec_run(run, "test"), encoding="utf-8")
    qrels_file.write_text(trec_qrels(qrels), encoding="utf-8")
    return run_file, qrels_file


def test_ties_keep_our_order_in_the_file(tmp_path: Path) -> None:
    """Tied scores rank by id ascending here; trec_eval would rank `b` before `a` (id descending)."""
    run = {"q": {"b": 1.0, "a": 1.0 + 1e-12, "c": 2.0, "d": 0.5}}
    qrels = {"q": {"a": 1, "d": 1}}
    ours = evaluate(qrels, run, CHECKED)
    assert ours["q"]["mrr"] == 0.5
    assert ours["q"]["precision@3"] == pytest.approx(1 / 3)
    assert _tools_agree(*_written(tmp_path, run, qrels), ours) == 1
    lines = (tmp_path / "run.trec").read_text().splitlines()
    assert [line.split()[2] for line in lines] == ["c", "a", "b", "d"]
    assert [line.split()[3] for line in lines] == ["1", "2", "3", "4"]


def test_ids_with_whitespace_are_refused() -> None:
    with pytest.raises(ValueError, match="whitespace"):
        trec_run({"q 1": {"a": 1.0}}, "t")


def test_suite_run_files_give_our_numbers(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "-m", "bm25", "-m", "vector", "--trec", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "run-embedded-latest.json").read_text())
    results = [CaseResult(**case) for case in report["cases"]]
    for mode, (run, qrels) in suite_trec(results).items():
        run_file, qrels_file = (tmp_path / f"run-embedded-{mode}-latest.{ext}" for ext in ("trec", "qrels"))
        ours = evaluate(qrels, run, CHECKED)
        assert _tools_agree(run_file, qrels_file, ours) == len(qrels) > 50
        # the report's own per-case set precision and recall, (uncut) nDCG and reciprocal rank are the tools'
        tool = {
            (m.query_id, str(m.measure)): m.value
            for m in ir_measures.iter_calc(
                [ir_measures.parse_measure(m.ir_measures) for m in SUITE_MEASURES],
                ir_measures.read_trec_qrels(str(qrels_file)),
                ir_measures.read_trec_run(str(run_file)),
            )
        }
        judged = [r for r in results if r.mode == mode and r.ndcg is not None]
        assert len(judged) == len(qrels)
        for case in judged:
            query = f"{case.suite}/{case.item_id}"
            for m in SUITE_MEASURES:
                reported = getattr(case, _CASE_FIELDS[m.name])
                assert reported == pytest.approx(tool.get((query, m.ir_measures), 0.0), abs=1e-6), (query, m.name)


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_dataset_run_files_give_the_reported_numbers(tmp_path: Path, mode: str) -> None:
    from harness.embeddings import Embedder

    data = tmp_path / "locomo_small.json"
    data.write_text(json.dumps([locomo_conversation()]), encoding="utf-8")
    factory: Callable[[], Embedder] = partial(
        Embedder, "bag-of-words", cache_dir=tmp_path / "embeddings", loader=lambda _name, _device: BagOfWordsEncoder()
    )
    out = tmp_path / "reports"
    report = run_dataset_report(out, factory, dataset="locomo", file=data, modes=[mode], granularity="turn", trec=True)
    reported = measures(["recall_any@1", "recall_any@5", "recall_any@10", "recall@5", "recall@10", "ndcg@10", "mrr"])
    for level in ("turn", "session"):
        ours = {q["id"]: q["levels"][level]["metrics"] for q in report["questions"] if q["status"] == "ok"}
        run_file, qrels_file = (out / f"dataset-locomo-turn-{mode}-{level}-latest.{ext}" for ext in ("trec", "qrels"))
        assert _tools_agree(run_file, qrels_file, ours, reported) == len(ours) > 3
