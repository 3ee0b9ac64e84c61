"""LongMemEval: one haystack per question, gold at both levels, abstention, streaming."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.errors import CaseFileError
from harness.suites.longmemeval import LongMemEvalFile

from .builders import longmemeval_record, shared_file


def test_each_question_is_its_own_haystack_with_gold_at_both_levels(longmemeval_file: Path) -> None:
    first, abstention, repeated = LongMemEvalFile(longmemeval_file).read()

    assert [h.id for h in (first, abstention, repeated)] == ["q1", "q2_abs", "q3"]
    (question,) = first.questions
    assert question.gold_sessions == {"answer_1"}
    assert question.gold_turns == {"answer_1:1"}
    assert [d.id for d in first.documents[:3]] == ["filler_1:1", "filler_1:2", "answer_1:1"]
    assert first.documents[2].speaker == "user"
    assert first.documents[2].date == "2023/05/21 (Sat) 10:00"
    assert question.date == "2023/05/30 (Tue) 23:40"
    assert not question.abstention


def test_abstention_questions_are_flagged_and_have_no_gold(longmemeval_file: Path) -> None:
    (question,) = list(LongMemEvalFile(longmemeval_file).read())[1].questions
    assert question.abstention
    assert question.gold_sessions == frozenset()
    assert question.gold_turns == frozenset()
    assert question.category == "knowledge-update"


def test_a_repeated_session_is_indexed_once_and_noted(longmemeval_file: Path) -> None:
    haystack = list(LongMemEvalFile(longmemeval_file).read())[2]
    assert list(haystack.sessions()) == ["filler_1", "answer_3"]
    assert haystack.notes == ("duplicate session filler_1 dropped",)


def test_scan_lists_questions_without_building_haystacks(longmemeval_file: Path) -> None:
    refs = LongMemEvalFile(longmemeval_file).scan()
    assert LongMemEvalFile(longmemeval_file).count() == 3
    assert [(r.position, r.id, r.category) for r in refs] == [
        (0, "q1", "single-session-user"),
        (1, "q2_abs", "knowledge-update"),
        (2, "q3", "multi-session"),
    ]


def test_only_selected_positions_are_built(longmemeval_file: Path) -> None:
    assert [h.id for h in LongMemEvalFile(longmemeval_file).read(frozenset({2}))] == ["q3"]


def test_records_stream_one_at_a_time(tmp_path: Path) -> None:
    """A record is yielded before the rest of the file is even parsed."""
    good = json.dumps(longmemeval_record("q1", "a question?", {"s": [("user", "text", True)]}, ["s"]))
    path = tmp_path / "truncated.json"
    path.write_text(f'[{good}, {{"question_id": "q2", "haystack_sess', encoding="utf-8")
    records = LongMemEvalFile(path).read()

    assert next(records).id == "q1"
    with pytest.raises(CaseFileError, match="not valid JSON"):
        next(records)
    with pytest.raises(CaseFileError, match="not valid JSON"):  # the count checks the whole file
        LongMemEvalFile(path).count()


def test_a_record_missing_fields_is_a_located_error(tmp_path: Path) -> None:
    record = longmemeval_record("q9", "a question?", {"s": [("user", "text", False)]}, ["s"])
    del record["haystack_dates"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"case 'q9': record 0 is not LongMemEval: haystack_dates"):
        list(LongMemEvalFile(path).read())


def test_the_shared_oracle_file() -> None:
    reader = LongMemEvalFile(shared_file("longmemeval_oracle.json"))
    refs = reader.scan()
    haystacks = list(reader.read())

    assert len(refs) == len(haystacks) == reader.count() == 500
    questions = [q for h in haystacks for q in h.questions]
    assert sum(q.abstention for q in questions) == 30
    assert sum(len(h.documents) for h in haystacks) == 10960
    assert all(q.gold_sessions and q.gold_turns for q in questions if not q.abstention)
    assert Counter(r.category for r in refs)["temporal-reasoning"] == 133


def test_the_shared_s_sample_has_full_haystacks() -> None:
    haystacks = list(LongMemEvalFile(shared_file("longmemeval_s.sample5.json")).read())
    assert len(haystacks) == 5
    assert all(len(h.sessions()) >= 45 for h in haystacks)
    assert sum(len(h.notes) for h in haystacks) == 2
