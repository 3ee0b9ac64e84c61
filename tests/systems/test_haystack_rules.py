"""Popoto's dataset definitions end to end (`--haystack-rules`): on a system, what it stores and
which questions are asked; on the reference, the same question set; the report names the rules.

The three questions of `longmemeval_records` (one an abstention question) each have their answer
session at rank 1 in the test server's word-overlap search (worked out below), so Popoto's
any-hit recall@1 is 1 for each of the three, and the harness's rules ask only two of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.datasets.builders import longmemeval_records
from tests.reports.pages import harness
from tests.systems.memory_server import Store, serving


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def _dataset(tmp_path: Path) -> Path:
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(longmemeval_records()))
    return data


def _run(tmp_path: Path, system: str, data: Path, *rules: str) -> tuple[int, Path]:
    """A bm25 run of the reference, a run of a bare wrapper's one retrieval (hybrid) otherwise."""
    out = tmp_path / "out"
    mode = "bm25" if system == "reference" else "hybrid"
    code = harness(
        tmp_path, "run", "--system", system, "--dataset", "longmemeval-s", "--file", str(data), "--mode", mode,
        *(("--haystack-rules", rules[0]) if rules else ()), "--out", str(out),
    )  # fmt: skip
    return code, out


def _report(out: Path, stem: str) -> dict[str, Any]:
    (path,) = [p for p in out.glob(f"{stem}*.json") if "latest" not in p.name]
    return json.loads(path.read_text())


def test_popoto_rules_on_a_system(tmp_path: Path) -> None:
    # q1 "What degree did I graduate with?": the answer turn shares i, with, degree (3 words), no
    # other turn more than one. q2_abs "What is the name of my cat?": "My dog is called Rex." shares
    # my, is; no filler turn shares any. q3: the commute turn shares five words. So R@1 is 1 each.
    store = Store(extended=False)
    with serving(store) as url:
        code, out = _run(tmp_path, f"http:{url}", _dataset(tmp_path), "popoto")
    assert code == 0
    report = _report(out, "dataset-longmemeval-s-turn-popoto")
    assert report["dataset_rules"]["name"] == "popoto"
    assert report["dataset_rules"]["depth"] == 20
    asked = {q["id"]: q for q in report["questions"] if q["status"] == "ok"}
    assert set(asked) == {"q1", "q2_abs", "q3"}  # the abstention question is asked
    assert asked["q2_abs"]["levels"]["session"]["gold"] == ["answer_2"]
    assert report["popoto"]["hybrid"] == {
        "popoto_any-hit_recall@1": 1.0,
        "popoto_any-hit_recall@5": 1.0,
        "popoto_any-hit_recall@10": 1.0,
    }
    texts = {record["text"] for records in store.records.values() for record in records.values()}
    assert "I graduated with a degree in Business Administration last year." in texts  # the bare turn
    assert not any(text.startswith(("user:", "assistant:")) for text in texts)


def test_harness_rules_on_the_same_system_leave_abstention_out(tmp_path: Path) -> None:
    store = Store(extended=False)
    with serving(store) as url:
        code, out = _run(tmp_path, f"http:{url}", _dataset(tmp_path))
    assert code == 0
    report = _report(out, "dataset-longmemeval-s-session")
    assert "dataset_rules" not in report
    assert {q["id"] for q in report["questions"] if q["status"] == "ok"} == {"q1", "q3"}
    texts = {record["text"] for records in store.records.values() for record in records.values()}
    assert "user: I graduated with a degree in Business Administration last year." in texts


def test_popoto_rules_on_the_reference(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "reference", _dataset(tmp_path), "popoto@pre-438")
    assert code == 0
    report = _report(out, "dataset-longmemeval-s-turn-popoto-pre-438")
    assert report["dataset_rules"]["recall"] == "fractional"
    assert "reference pipeline" in report["dataset_rules"]["stored_text"]
    assert {q["id"] for q in report["questions"] if q["status"] == "ok"} == {"q1", "q2_abs", "q3"}
    markdown = next(p for p in out.glob("dataset-*.md") if "latest" not in p.name).read_text()
    assert "## Under Popoto's definitions (popoto@pre-438)" in markdown


def test_popoto_rules_refuse_a_dataset_popoto_defines_nothing_for(tmp_path: Path) -> None:
    code = harness(tmp_path, "run", "--dataset", "builtin", "--mode", "bm25", "--haystack-rules", "popoto")
    assert code == 2
