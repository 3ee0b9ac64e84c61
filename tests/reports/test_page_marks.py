"""The page marks what an item must not surface as forbidden, never as expected (issue 42): the
marks it embeds for its script, read from each item's expectations tier by tier (`relevant`,
`pinned`, `open_questions` must exclude, a session turn's noise must not surface)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.reports.html.marks import marks

from .test_report_page import page_data

TIERS = ("relevant", "pinned", "open_questions")


def _tier(mark: dict[str, Any] | None, tier: str) -> tuple[set[str], set[str]]:
    """The (hit, forbidden) ids the page draws within `tier` of the item's result."""
    scoped = ((mark or {}).get("tiers") or {}).get(tier, mark or {})
    return set(scoped.get("hit", [])), set(scoped.get("forbidden", []))


def test_every_case_draws_what_it_must_not_surface_as_forbidden(report_of_kind: dict[str, Path]) -> None:
    report = json.loads(report_of_kind["beliefs"].read_text())
    data = page_data(report_of_kind["beliefs"].with_suffix(".html").read_text())
    assert len(data["marks"]) == len(data["items"]) == len(report["cases"])
    checked = 0
    for case, mark in zip(report["cases"], data["marks"], strict=True):
        expect = case["expected"]
        noise = set((expect.get("noise") or {}).get("must_not_surface", []))
        for tier in TIERS:
            hit, forbidden = _tier(mark, tier)
            excluded = set((expect.get(tier) or {}).get("must_exclude", [])) | noise
            included = {
                *(expect.get(tier) or {}).get("should_only_include", []),
                *(expect.get(tier) or {}).get("must_include", []),
            }
            assert excluded <= forbidden, (case["case_id"], tier)
            assert not excluded & hit, (case["case_id"], tier)
            assert included - excluded <= hit, (case["case_id"], tier)
            checked += len(excluded)
    assert checked > 0


def test_an_id_one_tier_forbids_and_another_expects_is_marked_in_each_as_its_tier_says(
    report_of_kind: dict[str, Path],
) -> None:
    """oq-pinned-without-query: the pinned tier must exclude the open question that its own tier must include."""
    report = json.loads(report_of_kind["beliefs"].read_text())
    data = page_data(report_of_kind["beliefs"].with_suffix(".html").read_text())
    ((case, mark),) = [
        (c, m) for c, m in zip(report["cases"], data["marks"], strict=True) if c["case_id"] == "oq-pinned-without-query"
    ]
    (question,) = case["expected"]["pinned"]["must_exclude"]
    assert question in case["expected"]["open_questions"]["should_only_include"]
    assert _tier(mark, "pinned") == (set(case["expected"]["pinned"]["should_only_include"]), {question})
    assert _tier(mark, "open_questions") == ({question}, set())


def test_a_noise_id_is_forbidden_in_every_part_of_the_item() -> None:
    item = {
        "expected": {"relevant": {"should_only_include": ["m-a"]}, "noise": {"must_not_surface": ["m-n"]}},
        "retrieved": {"relevant": [{"id": "m-n"}], "pinned": ["m-n"]},
    }
    assert marks(item) == {"forbidden": ["m-n"], "tiers": {"relevant": {"hit": ["m-a"], "forbidden": ["m-n"]}}}


def test_marks_of_other_kinds_read_their_own_fields() -> None:
    """A question's gold ids (and each level's) are expected; a turn's `not_*` checks are forbidden."""
    question = {"gold": ["s-1"], "levels": {"turn": {"gold": ["t-1"], "retrieved": [["t-2", 0.5]]}}}
    assert marks(question) == {"hit": ["s-1", "t-1"]}
    turn = {"expected": {"activate_kinds": ["overview"], "not_activate_kinds": ["symbol"]}, "records": []}
    assert marks(turn) == {"hit": ["overview"], "forbidden": ["symbol"]}
    assert marks({"query": "q", "retrieved": []}) is None
