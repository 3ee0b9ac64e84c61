"""Intent rules (harness.pipeline.intent): chat when nothing is asked, overview for the whole
project, specific otherwise."""

from __future__ import annotations

import pytest

from harness.models.conversation import Intent
from harness.pipeline.intent import classify


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("Thanks!", Intent.CHAT),
        ("ok, got it", Intent.CHAT),
        ("The deploy window moved to Fridays.", Intent.CHAT),  # a statement asks for nothing
        ("How are you?", Intent.CHAT),  # small talk, though a question
        ("Thanks for the overview", Intent.CHAT),  # an overview word, but no request
        ("Give me a high-level summary of the repository", Intent.OVERVIEW),
        ("What is this project?", Intent.OVERVIEW),
        ("How is the project organized?", Intent.OVERVIEW),
        ("How many chapters are there?", Intent.OVERVIEW),
        ("summarize the book for me", Intent.OVERVIEW),
        ("How is the parser structured?", Intent.SPECIFIC),  # one part, not the whole
        ("Where is the retry logic", Intent.SPECIFIC),  # a request without a question mark
        ("Let's look at the login screen.", Intent.SPECIFIC),
        ("show me the config loader", Intent.SPECIFIC),
        ("Does the cache expire entries?", Intent.SPECIFIC),
    ],
)
def test_rules(message: str, intent: Intent) -> None:
    assert classify(message) is intent


def test_empty_message_is_chat() -> None:
    assert classify("") is Intent.CHAT
    assert classify("   ") is Intent.CHAT
