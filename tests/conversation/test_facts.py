"""Facts a user states: statements with content, openers cut; never questions, requests or thanks."""

from __future__ import annotations

from harness.models.project import RecordKind
from harness.pipeline.facts import fact_record, stated_facts


def test_statements_are_facts_with_openers_removed() -> None:
    assert stated_facts("By the way, the release manager is Odile and she prefers Mondays.") == [
        "the release manager is Odile and she prefers Mondays"
    ]
    assert stated_facts("Note that staging runs on port 9300. Also, backups go to the NAS!") == [
        "staging runs on port 9300",
        "backups go to the NAS",
    ]


def test_questions_requests_and_acknowledgements_are_not_facts() -> None:
    assert stated_facts("Where does the cache live?") == []
    assert stated_facts("Show me the retry policy") == []
    assert stated_facts("Let's look at the queue consumer") == []
    assert stated_facts("Thanks, that makes the parser clear") == []
    assert stated_facts("I think I understand the project now") == []
    assert stated_facts("ok") == []


def test_mixed_message_keeps_only_the_statement() -> None:
    assert stated_facts("The budget owner is Teodora. What does the roadmap say about May?") == [
        "The budget owner is Teodora"
    ]


def test_fact_record_id_is_stable_and_case_blind() -> None:
    first = fact_record("The lead is Ana")
    assert first.kind is RecordKind.FACT
    assert first.text == "The lead is Ana"
    assert first.id == fact_record("the lead is ana").id
    assert first.id != fact_record("The lead is Bo").id
