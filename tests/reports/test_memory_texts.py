"""A belief report keeps the text of every memory its cases retrieved or expected, once per suite
and cut short, so its page shows texts beside ids (issue 22); the score sheets stay as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.evaluation.kinds.beliefs.memory_texts import TEXT_CHARS

from .test_report_page import page_data


def _ids(value: Any) -> set[str]:
    """Every string under a case's `expected` or `retrieved` record (the ids among them)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for item in value.values() for s in _ids(item)}
    if isinstance(value, list):
        return {s for item in value for s in _ids(item)}
    return set()


def _corpus(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The suite's memories, read from the suite files the report names (corpus and created in sessions)."""
    sources = [Path(source["path"]) for source in report["meta"]["suites"][0]["sources"]]
    folder = sources[0].parent
    memories = {m["id"]: m for m in json.loads((folder / "corpus.json").read_text())["memories"]}
    for case in json.loads((folder / "session.json").read_text())["cases"]:
        for turn in case["turns"]:
            if turn.get("create"):
                memories.setdefault(turn["create"]["id"], turn["create"])
    return memories


def test_a_belief_report_keeps_each_named_memorys_text_once(report_of_kind: dict[str, Path]) -> None:
    report = json.loads(report_of_kind["beliefs"].read_text())
    suite = report["cases"][0]["suite"]
    corpus = _corpus(report)
    named = {i for case in report["cases"] for i in _ids(case["expected"]) | _ids(case["retrieved"]) if i in corpus}
    texts = report["memories"]
    assert list(texts) == [suite]
    assert set(texts[suite]) == named
    assert len(named) > 20
    for memory_id, text in texts[suite].items():
        memory = corpus[memory_id]
        assert len(text) <= TEXT_CHARS
        assert text.startswith(memory["name"]), memory_id
        full = f"{memory['name']}: {memory['content']}"
        assert text == full or (text.endswith("…") and full.startswith(text[:-1])), memory_id
    corpus_ids = {
        m["id"] for m in json.loads(Path(report["meta"]["suites"][0]["sources"][0]["path"]).read_text())["memories"]
    }
    assert named - corpus_ids, "a memory created mid-session is retrieved and has its text"


def test_the_memory_texts_are_no_score(report_of_kind: dict[str, Path]) -> None:
    """Baselines hold the envelope's score sheets: the texts are in the body only."""
    report = json.loads(report_of_kind["beliefs"].read_text())
    texts = {text for table in report["memories"].values() for text in table.values()}
    assert texts
    assert not texts & _ids(report["scores"])


def test_the_page_carries_the_texts_for_its_rows(report_of_kind: dict[str, Path]) -> None:
    report = json.loads(report_of_kind["beliefs"].read_text())
    data = page_data(report_of_kind["beliefs"].with_suffix(".html").read_text())
    assert data["texts"] == report["memories"]
    assert "Report: memories" not in data["sections"]
