"""Conversation turns through `--system http:URL`: a service declaring `budget` gets each turn's
search with the context budget as `budget_tokens`, and what it returns is judged by the turn
judge; one without `budget` gets *not applicable*, saying so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.pipeline.conversation import ContextSettings
from tests.reports.pages import harness
from tests.systems.memory_server import Store, serving

TURNS = 52
"""Turns of `conversation:builtin`."""


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def _run(folder: Path, store: Store) -> tuple[int, dict]:
    folder.mkdir(exist_ok=True)
    with serving(store) as url:
        code = harness(
            folder, "run", "--system", f"http:{url}", "-s", "conversation:builtin", "-m", "bm25", "--out", "out"
        )
    (path,) = [p for p in (folder / "out").glob("conversation*.json") if "latest" not in p.name]
    return code, json.loads(path.read_text())


def test_turns_judged_within_the_budget_the_service_is_given(tmp_path: Path) -> None:
    store = Store(extended=True, capabilities=("budget",))
    code, report = _run(tmp_path / "budget", store)
    assert code == 0
    assert report["not_applicable"] is None
    turns = report["turns"]
    assert len(turns) == TURNS
    assert not [t["error"] for t in turns if t["error"]]
    assert 0 < sum(t["passed"] for t in turns) < TURNS  # judged: the word-overlap server gets some right
    budget = ContextSettings().budget
    # each turn's search carries the budget it is judged at: its asserted most (a chat turn's), else the context's
    judged = {min(budget, t["expected"].get("warm_tokens_max", budget)) for t in turns}
    assert judged > {budget}
    assert {s["budget_tokens"] for s in store.searches if "budget_tokens" in s} == judged
    intent_checked = [t for t in turns if "intent" in t["expected"]]
    assert intent_checked
    assert all(any(r.startswith("intent (not judged)") for r in t["reasons"]) for t in intent_checked)
    assert store.records == {}  # every scenario's namespace dropped

    ignoring = Store(extended=True, capabilities=("budget",), ignore=("budget_tokens",))
    code, unbounded = _run(tmp_path / "ignoring", ignoring)
    assert code == 0
    # the budget decides what a turn gets: returning everything makes larger contexts
    assert max(t["tokens"] for t in unbounded["turns"]) > max(t["tokens"] for t in turns)
    assert [t["passed"] for t in unbounded["turns"]] != [t["passed"] for t in turns]


@pytest.mark.parametrize(("extended", "capabilities"), [(False, ()), (True, ("scopes", "timestamps", "clock"))])
def test_without_budget_the_turns_are_not_applicable(
    tmp_path: Path, extended: bool, capabilities: tuple[str, ...]
) -> None:
    store = Store(extended=extended, capabilities=capabilities, modes=("bm25",))
    with serving(store) as url:
        mode = "bm25" if extended else "hybrid"
        code = harness(
            tmp_path, "run", "--system", f"http:{url}", "-s", "conversation:builtin", "-m", mode, "--out", "out"
        )
    (path,) = [p for p in (tmp_path / "out").glob("conversation*.json") if "latest" not in p.name]
    report = json.loads(path.read_text())
    assert code == 0
    assert report["turns"] == []
    assert report["not_applicable"].startswith("Conversation turns each get a context capped by a token budget")
    assert report["not_applicable"].endswith(
        f"so they need the capability budget; system 'http:{url}' does not declare it."
    )
    assert ("POST", "/add") not in store.calls
