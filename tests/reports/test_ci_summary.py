"""The CI step's Markdown summary: what the run did not write itself cannot become markup or HTML."""

from __future__ import annotations

from harness.reports.ci_summary import stopped_markdown, summary_markdown
from harness.reports.document import Scorecard
from harness.reports.junit import Tally

HOSTILE = "<img src=x onerror=alert(1)>"


def test_names_from_the_run_are_escaped() -> None:
    card = Scorecard(
        f"builtin, system http:{HOSTILE}", ("backend", "mode"), [["embedded", "b|m25"]], [f"note {HOSTILE}"]
    )
    text = summary_markdown(
        1,
        [card],
        [f"1 of 2 results errored: {HOSTILE}"],
        {f"builtin / embedded / bm25 / `x` {HOSTILE}": 2},
        ["baseline builtin: FAILED", "```", "  case-1: regressed"],
        Tally(tests=4, failures=1, skipped=1),
    )
    key = f"- ``builtin / embedded / bm25 / `x` {HOSTILE}``: 2 cases regressed"  # a code span: no markup or HTML
    assert key in text
    assert "<img" not in text.replace(key, "")
    assert "| embedded | b\\|m25 |" in text  # a `|` in a cell stays in its cell
    assert text.startswith("## memory-retrieval-harness: failed (exit 1)\n\n4 cases: 2 passed, 1 failed, 0 errored")
    assert "(pass rate 66.7%)" in text
    # the baseline lines are a fenced block no line of theirs can close
    assert "\n````\nbaseline builtin: FAILED\n```\n  case-1: regressed\n````\n" in text
    assert "<img" not in stopped_markdown(2, f"error: {HOSTILE}")


def test_a_clean_run_says_passed_and_lists_no_regression() -> None:
    text = summary_markdown(0, [], [], {}, [], Tally(tests=1))
    assert text.startswith("## memory-retrieval-harness: passed")
    assert "Regressed" not in text
