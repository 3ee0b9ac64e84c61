"""Lifecycle scenarios through `--system http:URL`: a service declaring timestamps, clock, access
and consolidation gets them scored by the harness's judge, with scores that depend on the
operations being called; one lacking any of them gets *not applicable*, naming what it lacks."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from harness.backends.registry import connect
from harness.evaluation.kinds.beliefs.system import to_record
from harness.evaluation.kinds.lifecycle.system import START, at
from harness.models.memory import Memory, MemoryType, Status
from harness.pipeline.settings import Mode
from harness.systems import http
from harness.systems.bound import bind
from harness.systems.protocol import Opening, Query
from tests.reports.pages import harness
from tests.systems.memory_server import Store, serving

LIFECYCLE = ("timestamps", "clock", "access", "consolidation")


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def _report(out: Path) -> dict:
    (path,) = [p for p in out.glob("lifecycle*.json") if "latest" not in p.name]
    return json.loads(path.read_text())


def _memory(memory_id: str, label: str, text: str, age: int) -> dict:
    return {"id": memory_id, "label": label, "summary": text, "content": "", "age_minutes": age, "salience": 0.5}


def _scenario(tmp_path: Path) -> Path:
    """Four old noise memories match the query better than the one recent signal memory.

    Against the test server (expire after 480 minutes), bm25, 5 cycles of 60 minutes, access to each
    query's top 3: before, the five come back noise first, the signal 5th (MRR 1/5); the access
    phase uses n1-n3 at minute 0; at minute 300 consolidation expires n4 (last used at -1003,
    before 300 - 480), so after, the signal is 4th (MRR 1/4). Without a clock nothing is used or
    expires: MRR 1/5 after too."""
    memories = [_memory(f"n{i}", "noise", "vault token rotation schedule", 1000 + i) for i in range(1, 5)]
    memories.append(_memory("s1", "signal", "the vault password", 10))
    scenario = {
        "name": "expiry",
        "memories": memories,
        "queries": [{"query": "vault token rotation", "expected_ids": ["s1"]}],
    }
    path = tmp_path / "expiry.json"
    path.write_text(json.dumps({"scenarios": [scenario], "retrieval": {"max_results": 5}}))
    return path


def _run(tmp_path: Path, store: Store, suite: str, out: str = "out", *extra: str) -> tuple[int, dict]:
    mode = store.modes[0] if store.extended else "hybrid"  # a bare wrapper's one retrieval, reported as hybrid
    with serving(store) as url:
        code = harness(tmp_path, "run", "--system", f"http:{url}", "--suite", suite, "-m", mode, "--out", out, *extra)
    return code, _report(tmp_path / out)


def test_scores_follow_the_clock_access_and_consolidation(tmp_path: Path) -> None:
    suite = f"mnemonic:{_scenario(tmp_path)}"
    store = Store(extended=True, capabilities=LIFECYCLE)
    code, report = _run(tmp_path, store, suite)
    assert code == 0
    assert report["not_applicable"] is None
    (result,) = report["results"]
    assert result["error"] is None
    (query,) = result["queries"]
    assert [h["id"] for h in query["before"]] == ["n1", "n2", "n3", "n4", "s1"]
    assert [h["id"] for h in query["after"]] == ["n1", "n2", "n3", "s1"]
    assert result["before"]["mrr"] == pytest.approx(1 / 5)
    assert result["after"]["mrr"] == pytest.approx(1 / 4)
    # the system's memory states are not observable through the protocol: not measured, not graded
    assert result["lifecycle"] == {"noise_suppression": None, "signal_retention": None, "dedup": None}
    assert set(result["grades"]) == {"precision", "mrr", "ndcg"}
    assert any("states are not observable" in w for w in report["warnings"])
    assert store.records == {}  # the scenario's namespace dropped
    paths = [path for _, path in store.calls]
    assert paths.count("/advance") == 1 + 5  # the start, then each cycle
    assert paths.count("/consolidate") == 5
    assert paths.count("/access") == 1  # one query: its top 3

    ignoring = Store(extended=True, capabilities=LIFECYCLE, ignore=("/advance",))
    code, report = _run(tmp_path, ignoring, suite, "out-ignoring")
    assert code == 0
    (result,) = report["results"]
    assert result["after"]["mrr"] == pytest.approx(1 / 5)  # no clock: nothing used, nothing expires


def test_builtin_scenarios_run_through_the_service(tmp_path: Path) -> None:
    store = Store(extended=True, capabilities=LIFECYCLE)
    code, report = _run(tmp_path, store, "lifecycle:builtin")
    assert code == 0
    results = report["results"]
    assert len(results) == 6
    assert all(r["error"] is None for r in results)
    assert any(r["after"] != r["before"] for r in results)  # consolidation changed what surfaces
    assert report["summary"]["bm25"]["grade"] in {"PASS", "WARN", "FAIL"}
    raw = next(r for r in results if r["raw"])
    assert raw["lifecycle"]["encoded"] > 0  # the harness encodes raw events, as on the reference path
    assert store.records == {}


@pytest.mark.parametrize(
    ("extended", "capabilities", "lacks"),
    [
        (False, (), "declares none of them"),
        (True, ("scopes", "replace"), "declares none of them"),
        (True, ("timestamps", "clock"), "does not declare access or consolidation"),
    ],
)
def test_a_system_lacking_a_capability_is_not_applicable(
    tmp_path: Path, extended: bool, capabilities: tuple[str, ...], lacks: str
) -> None:
    store = Store(extended=extended, capabilities=capabilities)
    code, report = _run(tmp_path, store, "lifecycle:builtin")
    assert code == 0
    assert report["results"] == []
    assert report["not_applicable"].startswith("Lifecycle scenarios replay memories over simulated time (")
    needs = "so they need the capabilities timestamps, clock, access and consolidation; system 'http:"
    assert needs in report["not_applicable"]
    assert report["not_applicable"].endswith(f"' {lacks}.")
    assert not any(path in ("/add", "/advance") for _, path in store.calls)


def test_no_consolidation_needed_without_cycles(tmp_path: Path) -> None:
    store = Store(extended=True, capabilities=("timestamps", "clock", "access"))
    code, report = _run(tmp_path, store, "lifecycle:builtin", "out", "--cycles", "0")
    assert code == 0
    assert report["not_applicable"] is None
    assert len(report["results"]) == 6
    assert ("POST", "/consolidate") not in store.calls


def _belief(memory_id: str, **marks: object) -> Memory:
    return Memory.model_validate(
        {"id": memory_id, "user": "alice", "type": MemoryType.FACT, "content": "the deploy key is in vault path",
         "scopes": ("domain:work",), "created_at": START} | marks
    )  # fmt: skip


def test_consolidation_drops_what_the_attributes_mark_superseded() -> None:
    """The test server's consolidation, through the protocol: records whose attributes mark them
    superseded (`superseded_by`, or `status` `superseded`, as the harness sends a belief memory's
    marks) are searchable until a cycle runs and gone after it; the same text unmarked stays.
    Nothing expires meanwhile (the clock never moves), so only the marks decide."""
    memories = [
        _belief("m-old", superseded_by="m-new"),
        _belief("m-retired", status=Status.SUPERSEDED),
        _belief("m-new"),
    ]
    records = [to_record(m) for m in memories]
    assert [r.attributes.get("superseded_by") for r in records] == ["m-new", None, None]
    assert [r.attributes["status"] for r in records] == ["active", "superseded", "active"]
    store = Store(extended=True, capabilities=LIFECYCLE)
    backend = connect("embedded")
    try:
        with serving(store) as url:
            bound = bind(http.spec(url), lambda namespace: Opening(backend, "embedded", None, namespace))
            system = bound.open("hsupersession")
            try:
                query = Query("where is the deploy key", "alice", limit=10, time=at(0.0))
                system.advance(at(0.0))
                system.add(records)
                before = [f.id for f in system.search(query, Mode.BM25)]
                system.record_access(before)
                system.advance(at(60.0))  # an hour on: far inside the server's 480-minute expiry
                system.consolidate()
                after = [f.id for f in system.search(query, Mode.BM25)]
            finally:
                system.close()
    finally:
        backend.close()
    assert sorted(before) == ["m-new", "m-old", "m-retired"]
    assert after == ["m-new"]


@dataclass
class Recording(Store):
    """The test server, keeping every record body `POST /add` carried."""

    bodies: list[dict[str, Any]] = field(default_factory=list)

    def _add_one(self, body: dict[str, Any]) -> None:
        self.bodies.append(body)
        super()._add_one(body)


def test_lifecycle_memories_carry_their_state_salience_and_concepts_only(tmp_path: Path) -> None:
    """What the lifecycle path tells a system about a memory (docs/system-protocol.md): its time
    (the scenario's start minus its age) and `state`, `salience`, `concepts`. A scenario memory has
    no supersession (its states are active, fading, archived, merged), so no `superseded_by` or
    `status` is sent, and a system's consolidation has no supersession to act on here."""
    store = Recording(extended=True, capabilities=LIFECYCLE)
    code, _ = _run(tmp_path, store, f"mnemonic:{_scenario(tmp_path)}")
    assert code == 0
    sent = {b["metadata"]["beliefId"]: b for b in store.bodies}
    assert sorted(sent) == ["n1", "n2", "n3", "n4", "s1"]
    assert {i: b["attributes"] for i, b in sent.items()} == {
        i: {"state": "active", "salience": 0.5, "concepts": ""} for i in sent
    }
    ages = {"n1": 1001, "n2": 1002, "n3": 1003, "n4": 1004, "s1": 10}
    assert {i: b["timestamp"] for i, b in sent.items()} == {
        i: (START - timedelta(minutes=age)).isoformat() for i, age in ages.items()
    }
