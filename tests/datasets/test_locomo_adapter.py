"""LoCoMo: a haystack per conversation, image captions, category names, evidence defects."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from harness.suites.locomo import LoCoMoFile, parse_evidence

from .builders import shared_file


def test_a_conversation_is_one_haystack_of_turns_by_session(locomo_file: Path) -> None:
    (haystack,) = LoCoMoFile(locomo_file).read()
    assert haystack.id == "conv-1"
    assert list(haystack.sessions()) == ["session_1", "session_2"]
    first = haystack.documents[0]
    assert (first.id, first.speaker, first.date) == ("D1:1", "Caroline", "1:56 pm on 8 May, 2023")
    assert len(haystack.questions) == 6


def test_image_turns_carry_their_caption(locomo_file: Path) -> None:
    (haystack,) = LoCoMoFile(locomo_file).read()
    image = next(d for d in haystack.documents if d.id == "D1:3")
    assert image.text == "Look at this. [image: a photo of a lake at sunrise with a canoe]"


def test_categories_are_named_and_gold_sessions_follow_turns(locomo_file: Path) -> None:
    (haystack,) = LoCoMoFile(locomo_file).read()
    names = [q.category for q in haystack.questions]
    assert names == ["temporal", "single-hop", "multi-hop", "single-hop", "open-domain", "adversarial"]
    first = haystack.questions[0]
    assert (first.id, first.gold_turns, first.gold_sessions) == ("conv-1:0", {"D1:1"}, {"session_1"})
    assert haystack.questions[5].answer == "a sunrise"


def test_evidence_defects_are_repaired_or_dropped_and_recorded(locomo_file: Path) -> None:
    (haystack,) = LoCoMoFile(locomo_file).read()
    by_id = {q.id: q for q in haystack.questions}

    assert by_id["conv-1:1"].gold_turns == {"D1:2", "D1:3"}
    assert by_id["conv-1:1"].defects == ("evidence 'D1:2; D1:3' split into 2 ids",)
    assert by_id["conv-1:2"].gold_turns == {"D1:3"}
    assert by_id["conv-1:2"].defects == ("evidence 'D1:03' read as 'D1:3'",)
    assert by_id["conv-1:3"].gold_turns == {"D2:1"}
    assert by_id["conv-1:3"].defects == ("malformed evidence 'D' dropped",)
    assert by_id["conv-1:4"].gold_turns == frozenset()
    assert by_id["conv-1:4"].defects == ("malformed evidence 'D:2:2' dropped", "evidence 'D9:9' names no turn, dropped")
    assert by_id["conv-1:5"].defects == ("empty evidence",)


def test_space_joined_evidence_is_split() -> None:
    gold, defects = parse_evidence(["D9:1 D4:4  D4:6"], {"D9:1", "D4:4", "D4:6"})
    assert gold == {"D9:1", "D4:4", "D4:6"}
    assert len(defects) == 1


def test_selected_positions_keep_only_those_questions(locomo_file: Path) -> None:
    (haystack,) = LoCoMoFile(locomo_file).read(frozenset({1, 4}))
    assert [q.id for q in haystack.questions] == ["conv-1:1", "conv-1:4"]
    assert list(LoCoMoFile(locomo_file).read(frozenset({99}))) == []


def test_the_shared_locomo_file_and_its_known_defects() -> None:
    reader = LoCoMoFile(shared_file("locomo10.json"))
    refs = reader.scan()
    haystacks = list(reader.read())
    questions = [q for h in haystacks for q in h.questions]

    assert len(haystacks) == 10
    assert len(refs) == len(questions) == 1986
    assert sum(len(h.documents) for h in haystacks) == 5882
    assert sum(len(h.sessions()) for h in haystacks) == 272
    assert Counter(q.category for q in questions) == {
        "single-hop": 841,
        "adversarial": 446,
        "temporal": 321,
        "multi-hop": 282,
        "open-domain": 96,
    }
    assert sum("empty evidence" in q.defects for q in questions) == 4
    malformed = [q for q in questions if q.defects and "empty evidence" not in q.defects]
    assert len(malformed) == 9
    assert sum(not q.gold_turns for q in questions) == 4
