"""An Acervo-format folder (our own fixture project and turn file) run end to end on the embedded
backend: ingested, every turn prepared, judged and processed, measured against the scripted agent
and the history, reported (JSON, Markdown, scorecard, score sheet) and charted."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from harness import tokens
from harness.backends import registry
from harness.evaluation.kind import Engine
from harness.evaluation.kinds.conversation.runner import ConversationKind
from harness.pipeline.settings import Mode
from harness.reports.document import RunInfo
from harness.reports.envelope import Envelope
from harness.suites.acervo import load_acervo
from tests.conversation.helpers import run_kind

FOLDER = Path(__file__).parent / "acervo"


@pytest.fixture(scope="module")
def run():
    backend = registry.connect("embedded")
    yield run_kind(backend, load_acervo(FOLDER, "acervo:kiln"), fail_under=1.0)
    backend.close()


def test_every_turn_holds_its_checks(run) -> None:
    results, _ = run
    assert [(r.turn, r.passed, r.reasons) for r in results] == [(n, True, []) for n in range(1, 8)]
    by_turn = {r.turn: r for r in results}
    assert by_turn[1].intent == "overview"
    assert any("safety.go" in r["label"] for r in by_turn[2].records)
    assert by_turn[3].facts_stored == ["Our studio technician is Hamid Rostami and he fires the kiln on Thursdays"]
    assert by_turn[5].records[0]["kind"] == "fact"
    assert by_turn[6].tokens == 0
    assert by_turn[6].context == ""


def test_token_counts_are_measured(run) -> None:
    results, _ = run
    for r in results:
        assert r.tokens == tokens.count(r.context)
        assert r.input_tokens == r.tokens + tokens.count(r.user)
    first_turn = load_acervo(FOLDER).scenarios[0].turns[0]
    spoken = f"{first_turn.user}\n{first_turn.assistant}"
    assert results[0].history_tokens == tokens.count(results[0].user)
    assert results[1].history_tokens == tokens.count(f"{spoken}\n{results[1].user}")


def test_scripted_agent_reads_until_the_answer(run) -> None:
    results, _ = run
    second = results[1]
    assert second.agent_answered is True
    # the search for "cut" prints the line that names SafetyLimitC and the thermocouple
    assert second.agent_steps == ["list_directory .", "file_search controller", "file_search cut"]
    assert second.agent_tokens > second.history_tokens
    assert results[2].agent_tokens is None  # a turn with no answer terms gives the agent nothing to find
    # the answer was stated in the conversation, not written in the project: the agent must earn it
    # from the files (the history does not count), reads them all and never finds it
    assert results[4].agent_answered is False
    assert results[4].agent_steps[-1].startswith("read_file ")


def test_report_and_chart(run, tmp_path: Path) -> None:
    results, report = run
    assert report.stem == "conversation-embedded"
    assert report.gates == []  # every turn passed: --fail-under 1.0 holds
    summary = report.data["summary"]["bm25"]
    assert (summary["turns"], summary["passed"], summary["errors"]) == (7, 7, 0)
    assert summary["categories"]["RECALL"]["score"] == 1.0
    assert summary["components"] == {"intent": 1.0, "activation": 1.0, "budget": 1.0, "content": 1.0}
    efficiency = summary["efficiency"]
    assert efficiency["input_tokens"] == sum(r.input_tokens for r in results)
    measured = [r for r in results if r.agent_tokens is not None and r.agent_answered]  # unanswered: left out
    assert efficiency["agent_unanswered"] == 1
    assert efficiency["vs_agent"] == pytest.approx(
        sum(r.agent_tokens for r in measured) / sum(r.input_tokens for r in measured)
    )
    assert report.data["dropped_fields"] == ["kiln.yaml: field 'owner' not used"]
    (row,) = report.scorecard.rows
    assert row[:3] == ["embedded", "bm25", "7/7"]
    assert "| kiln\\#2 | GROUND | specific |" in report.markdown
    second = results[1]
    bars = [line for line in report.markdown.splitlines() if line.startswith("kiln#2  ours")]
    assert bars == [
        f"kiln#2  ours    {second.input_tokens:>6} "
        + "█"
        * round(
            40 * second.input_tokens / max(max(r.input_tokens, r.history_tokens, r.agent_tokens or 0) for r in results)
        )
    ]
    assert report.settings["budget"] == 600  # what the scores depend on, for baselines
    assert report.settings["tokenizer"] == "cl100k_base"
    sheet = report.scores["bm25"]
    assert sheet.overall["pass_rate"] == 1.0
    assert sheet.cases["kiln#4"].passed is True
    json.dumps(report.data)  # the report is plain JSON
    chart = report.charts["efficiency"](tmp_path / "efficiency.png")
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_wrong_expectation_fails_end_to_end(tmp_path: Path) -> None:
    folder = tmp_path / "acervo"
    shutil.copytree(FOLDER, folder)
    scenario = yaml.safe_load((folder / "kiln.yaml").read_text())
    scenario["turns"][1]["s3"] = {"context_contains": ["celadon"]}  # the glaze notes are off topic here
    (folder / "kiln.yaml").write_text(yaml.safe_dump(scenario))
    backend = registry.connect("embedded")
    try:
        results, report = run_kind(backend, load_acervo(folder), fail_under=1.0)
    finally:
        backend.close()
    assert results[1].reasons == ["content: term missing: the context lacks 'celadon'"]
    assert report.gates == ["embedded bm25: turn pass rate 0.857 is under --fail-under 1.0"]
    assert report.data["summary"]["bm25"]["passed"] == 6
    assert report.data["summary"]["bm25"]["categories"]["GROUND"]["score"] == 0.5


def test_an_interrupted_run_says_so() -> None:
    backend = registry.connect("embedded")
    try:
        kind = ConversationKind(load_acervo(FOLDER))
        steps = kind.execute(Engine(backend, None, (Mode.BM25,)))
        results = [r for _, step in zip(range(3), steps, strict=False) for r in step.results]
        steps.close()  # the run stops after three turns; the namespace is dropped
        reason = "interrupted by SIGINT after 3 of 7 turns"
        info = RunInfo(backend.info(), (Mode.BM25,), {}, {}, datetime.now(UTC), 0.1, reason)
        envelope = Envelope.of(kind, info, kind.report(results, info), {})
        report = envelope.framed(kind.report(results, info))
    finally:
        backend.close()
    assert envelope.document(report.data, {})["incomplete"] is True
    assert f"INCOMPLETE: {reason}" in report.scorecard.caption
    assert f"> **INCOMPLETE RUN**: {reason}. Only the turns that finished are below." in report.markdown
    assert report.data["summary"]["bm25"]["turns"] == 3


def test_acervos_measure_can_answer_and_projects(run) -> None:
    """Acervo's efficiency measure is its estimate over our warm tokens, on the turns that estimate."""
    results, report = run
    second = results[1]  # the one turn with agent_comparison: estimated_input_tokens 2000, 2 tools
    summary = report.data["summary"]["bm25"]
    assert summary["efficiency"]["estimated_turns"] == 1
    assert summary["efficiency"]["acervo_ratio"] == pytest.approx(2000 / second.tokens)
    assert summary["can_answer"] == {
        "GROUND": {
            "turns": 1,
            "stateless": 0,
            "agent_estimate": {"answers": 1, "mean_tokens": 2000, "mean_steps": 2},
            "scripted_agent": {
                "turns": 1,
                "answers": 1,
                "mean_tokens": second.agent_tokens,
                "mean_steps": len(second.agent_steps),
            },
            "memory": {"answers": 1, "mean_tokens": second.tokens, "ratio": pytest.approx(2000 / second.tokens)},
        }
    }
    ground = summary["categories"]["GROUND"]
    assert (ground["out_of"], ground["estimated_turns"], ground["estimated_agent_mean_tokens"]) == (2, 1, 2000)
    assert summary["projects"]["kiln"]["turns"] == 7
    # the strict rules (this run's): turn 6 asserts no content, so it is not counted
    assert summary["projects"]["kiln"]["held"] == summary["projects"]["kiln"]["out_of"] == 6
    assert "Can answer, GROUND (1 turns with an agent estimate" in report.markdown
    assert "| kiln | 7 | 7 | 1.00 | 6/6 |" in report.markdown


def test_a_chat_only_scenario_plays_over_an_empty_memory(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "name: c\ntype: conversation\nturns:\n"
        "  - turn: 1\n    user: Our boat is called Kestrel and it sails from Oban.\n    category: RESOLVE\n"
        "  - turn: 2\n    user: Where does the boat Kestrel sail from?\n    category: RECALL\n"
        "    s3:\n      context_contains: [oban]\n"
    )
    backend = registry.connect("embedded")
    try:
        results, report = run_kind(backend, load_acervo(tmp_path))
    finally:
        backend.close()
    first, second = results
    assert first.facts_stored == ["Our boat is called Kestrel and it sails from Oban"]
    assert (second.passed, second.records[0]["kind"]) == (True, "fact")
    assert second.agent_tokens is None  # no project: nothing for an agent to read
    assert report.data["not_judged"][0].startswith("c.yaml: a conversation scenario (no project_fixture)")
