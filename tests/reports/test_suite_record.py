"""Each run report records the ruleset its suites were judged by, and says when vector modes
embedded with another model than the suite's authors used."""

from __future__ import annotations

from harness.evaluation.kinds.beliefs import report as belief_report
from harness.reports.metadata import run_metadata, suite_record
from harness.suites import load_suite
from harness.suites.resolve import cases_dir

PAPER = f"tenure:{cases_dir() / 'tenure-format' / 'paper'}"


def _markdown(suites: list[dict]) -> str:
    return belief_report.to_markdown(belief_report.build(run_metadata(None, suites=suites), [], []))


def test_tenure_suite_records_its_ruleset_and_the_model_note() -> None:
    record = suite_record(load_suite(PAPER), "all-MiniLM-L6-v2")
    assert record["ruleset"] == "tenure@paper"
    assert record["rules"]["default_max_beliefs"] == 20
    assert record["rules"]["pinned_user_edited_any_scope"] is True
    assert record["rules"]["mutations"] == "after retrieval and checks"
    assert record["note"] == (
        "vector and hybrid modes embed with all-MiniLM-L6-v2, not the authors' nomic-embed-text: "
        "their counts are not the published ones"
    )
    markdown = _markdown([record])
    assert "Suites: tenure:paper (ruleset tenure@paper)." in markdown
    assert "Note on tenure:paper: vector and hybrid modes embed with all-MiniLM-L6-v2" in markdown


def test_no_note_without_vector_modes_or_for_builtin() -> None:
    assert "note" not in suite_record(load_suite(PAPER), None)
    builtin = suite_record(load_suite("builtin"), "all-MiniLM-L6-v2")
    assert builtin["ruleset"] == "builtin"
    assert "note" not in builtin
    assert "Suites: builtin (ruleset builtin)." in _markdown([builtin])
