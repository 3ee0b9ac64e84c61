"""The run report: every case explained (retrieved ids per tier, expected, precision/recall,
verdict with reasons, clause attribution, latency) and where/with what the run happened; and the
comparison reader, which must refuse anything that is not a run report with one clear error."""

from __future__ import annotations

import json
import platform
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.backends.embedded import EmbeddedBackend
from harness.errors import HarnessError
from harness.evaluation.kinds.beliefs import report as belief_report
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.report import summarize
from harness.evaluation.kinds.beliefs.runner import execute
from harness.pipeline import Mode
from harness.reports import compare
from harness.reports.document import sealed
from harness.reports.metadata import run_metadata
from harness.reports.reader import Reader
from harness.reports.writer import report_json
from harness.suites.native import load_native


def _write(folder: Path, name: str, data: Any) -> None:
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("suite")
    entity = {"user": "u-ana", "type": "entity", "scopes": ["domain:code"]}
    _write(
        folder,
        "corpus.json",
        {
            "default_user": "u-ana",
            "memories": [
                {
                    "id": "m-pg",
                    "name": "postgres_database",
                    "aliases": ["postgres"],
                    **entity,
                },
                {
                    "id": "m-redis",
                    "name": "redis_cache",
                    "aliases": ["redis"],
                    **entity,
                },
                {
                    "id": "m-ts",
                    "user": "u-ana",
                    "type": "preference",
                    "name": "typescript_strict",
                    "content": "Strict TypeScript.",
                    "scopes": ["user:universal"],
                    "pinned": True,
                },
                {
                    "id": "m-oq",
                    "user": "u-ana",
                    "type": "open_question",
                    "name": "hosting_choice",
                    "scopes": ["domain:code"],
                    "pinned": True,
                },
            ],
        },
    )
    only_pg = {"relevant": {"should_only_include": ["m-pg"]}}
    _write(
        folder,
        "static.json",
        {
            "cases": [
                # passes: exactly m-pg (precision 1, recall 1)
                {
                    "id": "c-ok",
                    "scopes": ["domain:code"],
                    "query": "postgres is slow",
                    "expect": only_pg,
                },
                # fails: m-redis is named too (precision 1/2, recall 1)
                {
                    "id": "c-mixed",
                    "scopes": ["domain:code"],
                    "query": "postgres and redis",
                    "expect": only_pg,
                },
            ]
        },
    )
    suite = load_native(folder)
    backend = EmbeddedBackend()
    try:
        results = execute(Plan([suite], [Mode.BM25]), backend, None)
        meta = run_metadata(backend.info(), suites=[{"name": suite.name}], modes=["bm25"])
    finally:
        backend.close()
    built = belief_report.build(meta, summarize(results), results)
    return {
        "json": json.loads(report_json(built)),
        "md": belief_report.to_markdown(built),
    }


def case(report: dict[str, Any], case_id: str) -> dict[str, Any]:
    (row,) = [c for c in report["json"]["cases"] if c["case_id"] == case_id]
    return row


def test_passing_case_is_fully_explained(report: dict[str, Any]) -> None:
    row = case(report, "c-ok")
    assert row["query"] == "postgres is slow"
    assert row["backend"] == "embedded"
    assert row["mode"] == "bm25"
    assert row["kind"] == "static"
    assert row["scopes"] == ["domain:code"]
    assert row["user"] == "u-ana"
    assert row["expected"] == {"relevant": {"should_only_include": ["m-pg"]}}
    retrieved = row["retrieved"]
    assert retrieved["pinned"] == ["m-ts"]
    assert [r["id"] for r in retrieved["relevant"]] == ["m-pg"]
    assert retrieved["open_questions"] == ["m-oq"]
    assert row["precision"] == 1.0
    assert row["recall"] == 1.0
    assert row["passed"] is True
    assert row["reasons"] == []
    assert row["pass_type"] == "active"
    assert isinstance(row["latency_ms"], float)
    assert row["latency_ms"] > 0


def test_clause_attribution_names_field_term_and_score(report: dict[str, Any]) -> None:
    (hit,) = case(report, "c-ok")["retrieved"]["relevant"]
    assert hit["rank"] == 1
    assert hit["score"] > 0
    clauses = hit["clauses"]
    assert clauses, "a relevant memory must say which clauses scored it"
    assert {c["field"] for c in clauses} <= {"name", "aliases"}
    # `postgres` is both in the name and the alias; no other query word is on m-pg's surface
    assert {c["term"] for c in clauses} == {"postgres"}
    assert {c["field"] for c in clauses} == {"name", "aliases"}
    assert all(c["score"] > 0 for c in clauses)
    assert sum(c["score"] for c in clauses) == pytest.approx(hit["score"])


def test_failing_case_has_metrics_and_reasons(report: dict[str, Any]) -> None:
    row = case(report, "c-mixed")
    assert sorted(r["id"] for r in row["retrieved"]["relevant"]) == ["m-pg", "m-redis"]
    assert row["precision"] == pytest.approx(0.5)
    assert row["recall"] == 1.0
    assert row["passed"] is False
    assert row["reasons"]
    assert any("m-redis" in reason for reason in row["reasons"])
    assert row["pass_type"] is None


def test_summary_counts(report: dict[str, Any]) -> None:
    (summary,) = report["json"]["summary"]
    assert summary["backend"] == "embedded"
    assert summary["mode"] == "bm25"
    assert summary["static_passed"] == 1
    assert summary["static_total"] == 2
    assert summary["pass_rate"] == pytest.approx(0.5)
    assert summary["mean_precision"] == pytest.approx(0.75)
    assert summary["mean_recall"] == pytest.approx(1.0)


def test_metadata_names_machine_versions_and_backend(report: dict[str, Any]) -> None:
    meta = report["json"]["meta"]
    assert meta["harness_version"] == harness.__version__
    assert meta["python"] == platform.python_version()
    assert meta["machine"] == platform.machine()
    assert meta["platform"]
    assert isinstance(meta["cpus"], int)
    assert meta["cpus"] >= 1
    assert datetime.fromisoformat(meta["created_at"]).tzinfo is not None
    assert "git_commit" in meta
    assert meta["backend"]["backend"] == "embedded"
    assert meta["backend"]["server_version"]
    assert meta["modes"] == ["bm25"]


def test_markdown_lists_failures_with_reasons(report: dict[str, Any]) -> None:
    md = report["md"]
    assert "c-mixed" in md
    assert "m-redis" in md
    assert "Failures (1)" in md


# -- compare ------------------------------------------------------------------------------------


def _enveloped(backend: str, modes: list[str]) -> dict[str, Any]:
    """The envelope of a belief run on `backend` in `modes` (scores left empty)."""
    return {
        "kind": "beliefs",
        "suite": "builtin",
        "origin": {},
        "inputs": [],
        "backend": {"backend": backend},
        "modes": modes,
        "unsupported_modes": {},
        "settings": {},
        "shard": None,
        "incomplete": False,
        "incomplete_reason": None,
        "harness_version": "test",
        "git_commit": None,
        "started_at": "2026-01-01T00:00:00+00:00",
        "wall_s": 0.0,
        "files": {},
        "scores": {},
    }


@pytest.mark.parametrize(
    "content",
    [
        '{"a": 1}',
        "[1, 2]",
        '{"summary": 5}',
        '{"summary": "done"}',
        '{"summary": [1]}',
        '{"summary": [{"model": "x", "score": 0.5}]}',
        "not json",
    ],
)
def test_compare_refuses_a_non_report_with_one_harness_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "other.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(HarnessError) as info:
        compare.load_reports([path], Reader())
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", ["folder", "latin-1"])
def test_compare_refuses_a_folder_or_non_utf8_file(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "other.json"
    if kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b'{"summary": "caf\xe9"}')
    with pytest.raises(HarnessError) as info:
        compare.load_reports([path], Reader())
    assert str(path) in str(info.value)


def test_compare_with_no_reports_is_a_harness_error(tmp_path: Path) -> None:
    with pytest.raises(HarnessError):
        compare.load_reports(compare.default_reports(tmp_path, Reader()), Reader())


def test_compare_by_default_shows_the_newest_complete_run_of_every_backend_and_mode(
    tmp_path: Path, report: dict[str, Any]
) -> None:
    """A run of one mode replaces its backend's `-latest` copy; the other modes' newest rows are in
    earlier reports, and compare shows them. Incomplete runs and shards are never compared."""

    def run(backend: str, passed: dict[str, int], **extra: Any) -> dict[str, Any]:
        data = json.loads(json.dumps(report["json"]))
        (row,) = data["summary"]
        data["summary"] = [row | {"backend": backend, "mode": m, "static_passed": n} for m, n in passed.items()]
        scores = {m: {"cases": {}, "overall": {"pass_rate": float(n)}} for m, n in passed.items()}
        return sealed(_enveloped(backend=backend, modes=list(passed)) | {"scores": scores} | data | extra)

    _write(tmp_path, "run-embedded-20260101T000000Z.json", run("embedded", {"bm25": 0, "vector": 1}))
    _write(tmp_path, "run-postgres-20260101T000000Z.json", run("postgres", {"bm25": 1}))
    _write(tmp_path, "run-embedded-20260102T000000Z.json", run("embedded", {"bm25": 1}))
    _write(tmp_path, "run-embedded-20260102T000000Z-2.json", run("embedded", {"hybrid": 1}))  # later, same second
    _write(tmp_path, "run-embedded-latest.json", run("embedded", {"hybrid": 1}))  # the copy of the newest
    stopped = run("embedded", {"vector": 0}, incomplete=True)
    _write(tmp_path, "run-embedded-incomplete-20260103T000000Z.json", stopped)
    shard = run("embedded", {"bm25": 0}, shard={"index": 1, "count": 2})
    _write(tmp_path, "run-embedded-shard1of2-20260104T000000Z.json", shard)

    sources = compare.default_reports(tmp_path, Reader())
    assert [p.name for p in sources] == [
        "run-embedded-20260101T000000Z.json",
        "run-postgres-20260101T000000Z.json",
        "run-embedded-20260102T000000Z.json",
        "run-embedded-20260102T000000Z-2.json",
    ]
    shown = [(row[3], row[4]) for row in compare.table(compare.load_reports(sources, Reader())).rows]
    assert shown == [
        ("embedded", "bm25"),  # the report is chosen for its vector row; it shows all of its own
        ("embedded", "vector"),
        ("postgres", "bm25"),
        ("embedded", "bm25"),
        ("embedded", "hybrid"),
    ]
