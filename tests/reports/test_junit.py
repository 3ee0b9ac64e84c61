"""`harness run --junit`'s writer over report documents, read back with a JUnit reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import junitparser

from harness.reports.junit import junit_xml


def document(**fields: Any) -> dict[str, Any]:
    """A belief report as the runner writes it: envelope fields, the body's cases and the `view` of them."""
    cases = [
        {"case_id": "ok", "mode": "bm25", "passed": True, "error": None},
        {"case_id": "wrong", "mode": "bm25", "passed": False, "error": None},
        {"case_id": "broke", "mode": "bm25", "passed": False, "error": "POST /search: 500"},
    ]
    rows = [
        {"id": "s/ok", "category": "", "title": "", "failed": False, "reasons": []},
        {"id": "s/wrong", "category": "", "title": "", "failed": True, "reasons": ["missing [m1]", "bad\x00byte"]},
        {"id": "s/broke", "category": "", "title": "", "failed": True, "reasons": ["errored"]},
    ]
    view = {"items": "cases", "unit": "cases", "rule": "its assertions failed", "main": [], "rows": rows}
    return {
        "kind": "beliefs",
        "suite": "builtin",
        "backend": {"backend": "embedded"},
        "system": {"name": "http:http://127.0.0.1:8080"},
        "wall_s": 1.5,
        "unsupported_modes": {"vector": "system offers no such retrieval"},
        "not_applicable": None,
        "cases": cases,
        "view": view,
    } | fields


def test_every_item_is_a_testcase_with_its_verdict(tmp_path: Path) -> None:
    not_applicable = document(kind="lifecycle", suite="lifecycle:builtin", cases=[], unsupported_modes={})
    not_applicable |= {"not_applicable": "needs clock", "view": {**not_applicable["view"], "rows": []}}
    text, tally = junit_xml([document(), not_applicable])
    (tmp_path / "junit.xml").write_text(text, encoding="utf-8")
    suites = list(junitparser.JUnitXml.fromfile(str(tmp_path / "junit.xml")))
    assert [s.name for s in suites] == [
        "http:http://127.0.0.1:8080/embedded/beliefs/builtin",
        "http:http://127.0.0.1:8080/embedded/lifecycle/lifecycle:builtin",
    ]
    cases = {(c.classname, c.name): c for c in suites[0]}
    base = "http:http://127.0.0.1:8080/embedded/beliefs/builtin"
    assert set(cases) == {(f"{base}/bm25", f"s/{i}") for i in ("ok", "wrong", "broke")} | {
        (f"{base}/vector", "vector mode")
    }
    assert cases[(f"{base}/bm25", "s/ok")].is_passed
    (failure,) = cases[(f"{base}/bm25", "s/wrong")].result
    assert isinstance(failure, junitparser.Failure)
    assert failure.message == "missing [m1]"
    assert failure.text == "missing [m1]\nbad\ufffdbyte"  # a byte XML cannot hold is replaced, never a broken file
    (error,) = cases[(f"{base}/bm25", "s/broke")].result
    assert isinstance(error, junitparser.Error)
    assert error.message == "POST /search: 500"
    (unsupported,) = cases[(f"{base}/vector", "vector mode")].result
    assert isinstance(unsupported, junitparser.Skipped)
    ((only,),) = [list(suites[1])]
    (skipped,) = only.result
    assert isinstance(skipped, junitparser.Skipped)
    assert skipped.message == "not applicable: needs clock"
    assert (tally.tests, tally.failures, tally.errors, tally.skipped) == (5, 1, 1, 2)
    assert tally.pass_rate == 1 / 3
    assert (suites[0].tests, suites[0].failures, suites[0].errors, suites[0].skipped) == (4, 1, 1, 1)
