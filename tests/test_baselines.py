"""Vector and hybrid are baselines: their case failures are results, but every case must run.

This runs the built-in suite in every mode from committed embeddings only (an empty user
cache and no model), and checks the run is complete and its numbers are well-formed.
"""

from __future__ import annotations

import pytest

from harness.backends.embedded import EmbeddedBackend
from harness.embeddings import device as device_module
from harness.evaluation.embedders import suite_embedder
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.report import summarize
from harness.evaluation.kinds.beliefs.runner import execute
from harness.pipeline import Mode
from harness.suites import BUILTIN, load_suite


@pytest.fixture
def no_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.usefixtures("no_user_cache")
@pytest.mark.parametrize("gpu", [False, True], ids=["cpu-machine", "gpu-machine"])
def test_every_mode_runs_every_case_from_committed_embeddings(gpu: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Also where torch sees a GPU: a suite embeds on the CPU by default, where its vectors were made."""
    monkeypatch.setattr(device_module, "torch_sees_cuda", lambda: gpu)
    suite = load_suite(BUILTIN)
    embedder = suite_embedder("all-MiniLM-L6-v2")
    embedder.compute = False  # prove the committed embeddings cover every text
    results = execute(Plan([suite], list(Mode)), EmbeddedBackend(), embedder)
    turns = sum(len(c.turns) for c in suite.session_cases)
    assert len(results) == 3 * (len(suite.static_cases) + turns)
    assert [r for r in results if r.error] == []
    by_mode = {s.mode: s for s in summarize(results)}
    assert set(by_mode) == {"bm25", "vector", "hybrid"}
    assert by_mode["bm25"].pass_rate == 1.0
    for summary in by_mode.values():
        for value in (summary.mean_precision, summary.mean_recall, summary.mean_ndcg, summary.mrr):
            assert value is not None
            assert 0.0 <= value <= 1.0
    # vector mode fills its k=5 slots whatever the query: it cannot be precise on this suite
    assert by_mode["vector"].mean_precision < by_mode["bm25"].mean_precision
    vector_rows = [r for r in results if r.mode == "vector" and r.kind == "static"]
    assert all(len(r.retrieved["relevant"]) <= 5 for r in vector_rows)
    assert all(c["field"] == "vector" for r in vector_rows for item in r.retrieved["relevant"] for c in item["clauses"])
