"""Every rule the harness judges a system by is stated in docs/system-protocol.md's table "What a
system is judged by", and the table states no rule the judge does not name: an author reads the
whole of what they are held to in one place."""

from __future__ import annotations

import re
from pathlib import Path

from harness.evaluation.judged_rules import Rule, rule_of

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "system-protocol.md"


def documented() -> list[str]:
    """The rules in the table's first column, in order."""
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("## What a system is judged by", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, re.M)


def test_the_protocol_states_every_judged_rule_and_no_other() -> None:
    assert documented() == [rule.value for rule in Rule]


def test_a_reason_names_its_rule_after_where_it_failed() -> None:
    reason = Rule.SUPERSEDED.reason("relevant", "m-a is superseded by m-b")
    assert reason == "relevant: superseded: m-a is superseded by m-b"
    assert rule_of(reason) is Rule.SUPERSEDED
    assert rule_of("needs 'scopes', which system 'x' does not declare") is None
