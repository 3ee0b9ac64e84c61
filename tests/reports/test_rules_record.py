"""One rules record per report (issue 43): every kind's run writes `rules {name, source, commit}`
into its envelope, and the reader gives a report from before the field the record of the rules its
kind wrote in a field of its own, once its checksum is checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.models.rulesets import KNOWN, rules_record
from harness.reports.compare import Compared, differences, table
from harness.reports.document import sealed
from harness.reports.reader import Reader, migrated


@pytest.mark.parametrize("kind", ["beliefs", "haystack", "lifecycle", "code-tasks", "conversation"])
def test_every_kinds_report_carries_the_rules_record_of_its_run(report_of_kind: dict[str, Path], kind: str) -> None:
    """The built-in suites run under the harness's rules, a belief suite on the reference under the
    pipeline's own tiers, and a nano-brain task file with an agent block under nano-brain's second
    runners; each record names where its definitions come from."""
    report = json.loads(report_of_kind[kind].read_text())
    expected = {"beliefs": "system-provides-tiers", "conversation": "strict", "code-tasks": "nano-brain-2"}
    assert report["rules"] == rules_record(expected.get(kind, "harness")).to_json()
    assert report["rules"]["source"].startswith("nano-step/nano-brain" if kind == "code-tasks" else "harness")


def test_a_peers_ruleset_names_its_repository_and_commit() -> None:
    record = rules_record("precisionmembench")
    assert record.source.startswith("tenurehq/precisionMemBench ")
    assert (record.commit or "").startswith("ec8347b")
    assert all(r.commit is None for r in KNOWN.values() if r.source == "harness")
    assert rules_record("from-a-newer-harness").source == "unknown"


@pytest.mark.parametrize(
    ("fields", "rules"),
    [
        ({"kind": "beliefs", "meta": {"context_rules": {"name": "precisionmembench"}}}, "precisionmembench"),
        ({"kind": "beliefs", "meta": {"suites": []}}, "system-provides-tiers"),
        ({"kind": "haystack", "dataset_rules": {"name": "popoto@pre-514"}}, "popoto@pre-514"),
        ({"kind": "haystack"}, "harness"),
        ({"kind": "lifecycle", "rules": "mnemonic-8ecf3ab"}, "mnemonic-8ecf3ab"),
        ({"kind": "conversation", "turn_rules": {"name": "acervo-v0.5"}}, "acervo-v0.5"),
        ({"kind": "conversation"}, "strict"),
        ({"kind": "code-tasks", "settings": {"rules": {"name": "nano-brain-2"}}}, "nano-brain-2"),
    ],
)
def test_a_report_from_before_the_record_is_migrated_from_where_its_kind_wrote_its_rules(
    fields: dict[str, Any], rules: str
) -> None:
    read = migrated(fields)
    assert read["rules"] == rules_record(rules).to_json()
    if fields["kind"] == "lifecycle":
        assert read["ruleset"] == "mnemonic-8ecf3ab"  # its body's own field, moved out of the envelope's name


def test_the_reader_migrates_an_older_report_and_still_verifies_its_checksum(
    report_of_kind: dict[str, Path], tmp_path: Path
) -> None:
    report = json.loads(report_of_kind["lifecycle"].read_text())
    old = {k: v for k, v in report.items() if k not in ("rules", "checksum", "ruleset")} | {"rules": "mnemonic-8ecf3ab"}
    (path := tmp_path / "old.json").write_text(json.dumps(sealed(old)))
    read = Reader().read(path)
    assert read.edited is None
    assert read.document["rules"]["name"] == "mnemonic-8ecf3ab"
    assert read.document["ruleset"] == "mnemonic-8ecf3ab"


def test_compare_tests_two_runs_only_under_the_same_rules(report_of_kind: dict[str, Path]) -> None:
    """Two rulesets score the same items differently: their runs are rows, never a paired test."""
    report = json.loads(report_of_kind["beliefs"].read_text())
    other = report | {"rules": rules_record("precisionmembench").to_json()}
    same = [Compared(Path("a.json"), report), Compared(Path("b.json"), report)]
    assert [d.suite for d in differences(same)] == [str(report["suite"])] * len(report["scores"])
    assert differences([Compared(Path("a.json"), report), Compared(Path("b.json"), other)]) == []
    assert "beliefs · precisionmembench" in table([Compared(Path("b.json"), other)]).rows[0][1]
