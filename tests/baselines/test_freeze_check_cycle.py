"""The freeze / check cycle on the built-in suite: a pipeline degraded on purpose fails the check,
naming the cases it broke; the restored pipeline passes it again."""

from __future__ import annotations

from pathlib import Path

from harness.backends.embedded import EmbeddedBackend
from harness.baselines import BaselineKey, BaselineStore, Verdict, check, freeze, history
from harness.baselines.history import FILE_NAME
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.runner import execute
from harness.evaluation.kinds.beliefs.scores import suite_scores
from harness.pipeline import Mode, PipelineSettings
from harness.pipeline.settings import CONTENT_FIELDS
from harness.suites import BUILTIN, load_suite

KEY = BaselineKey(BUILTIN, "embedded", "bm25")


def _log(tmp_path: Path) -> Path:
    """The run's history file: beside its reports, apart from the baselines."""
    return tmp_path / "reports" / FILE_NAME


def _run(settings: PipelineSettings) -> list[CaseResult]:
    return execute(Plan([load_suite(BUILTIN)], [Mode.BM25], settings), EmbeddedBackend(), None)


def _record(settings: PipelineSettings) -> dict:
    return {"fields": dict(settings.fields), "rrf_k": settings.rrf_k}


def test_freeze_degrade_check_fails_naming_the_cases_restore_check_passes(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path / "baselines")
    good = PipelineSettings()
    frozen = freeze(store, KEY, suite_scores(_run(good))["bm25"], _record(good), history_file=_log(tmp_path))
    assert frozen.frozen.written
    assert frozen.frozen.baseline.scores.overall["pass_rate"] == 1.0  # bm25 passes every built-in case
    before = store.path(KEY).read_bytes()

    degraded_settings = PipelineSettings(fields=CONTENT_FIELDS)  # retrieve on content, not name + aliases
    degraded = _run(degraded_settings)
    broken = {r.item_id for r in degraded if not r.passed}
    assert broken, "retrieving on content alone must break some case, or this test shows nothing"
    failed = check(store, KEY, suite_scores(degraded)["bm25"], _record(degraded_settings), history_file=_log(tmp_path))
    assert not failed.passed
    regressed = failed.comparison.having(Verdict.REGRESSED)
    assert {c.name for c in regressed if c.measure == "passed"} == broken
    assert any(c.label() == "overall pass_rate" for c in regressed)
    lines = failed.lines()
    assert set(failed.comparison.cases(Verdict.REGRESSED)) == broken  # each broken case once
    assert lines[0].startswith(f"baseline {KEY}: FAILED (cases: {len(broken)} regressed, 0 missing")
    for case in broken:
        assert f"  regressed  case {case} passed: passed -> failed" in lines
    assert any(line.startswith("  setting fields: ") for line in lines)

    restored = check(store, KEY, suite_scores(_run(good))["bm25"], _record(good), history_file=_log(tmp_path))
    assert restored.passed
    assert restored.comparison.changes == ()
    assert restored.lines() == [restored.lines()[0]]
    assert store.path(KEY).read_bytes() == before  # checks never rewrite the baseline
    assert [p.name for p in store.root.rglob("*") if p.is_file()] == ["embedded-bm25.json"]  # nor write beside it
    entries = history.read(_log(tmp_path))
    assert [(e["event"], e.get("passed")) for e in entries] == [("freeze", None), ("check", False), ("check", True)]
