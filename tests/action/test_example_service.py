"""The example memory service: what it declares it does, over HTTP, and its run through the harness on
every built-in suite (embedded backend), read back from the JUnit file with a JUnit reader."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import junitparser

from tests.action.service import ROOT, example_service


def call(url: str, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def add(url: str, rid: str, text: str, user: str = "ns/ana", **extension: Any) -> None:
    call(url, "POST", "/add", {"text": text, "user_id": user, "metadata": {"beliefId": rid}, **extension})


def ids(url: str, query: str, user: str = "ns/ana", **extension: Any) -> list[str]:
    answer = call(url, "POST", "/search", {"query": query, "user_id": user, "limit": 10, **extension})
    return [r["id"] for r in answer["results"]]


def test_it_does_what_it_declares() -> None:
    with example_service() as url:
        declared = call(url, "GET", "/capabilities")
        assert declared["protocol"] == "harness-memory/1"
        assert set(declared["capabilities"]) == {"scopes", "replace", "supersession", "pinned"}
        add(url, "pg", "The orders service stores orders in Postgres", scopes=["domain:work"])
        add(url, "bread", "Sourdough needs a starter fed daily", scopes=["domain:home"])
        add(url, "old", "The orders service stores orders in MySQL", attributes={"superseded_by": "pg"})
        add(url, "tz", "Ana works in the Lisbon time zone", attributes={"pinned": True})
        add(url, "other", "Postgres orders for another user", user="ns/bo")
        # pinned first, then by BM25; the superseded record and the other user's never
        assert ids(url, "where are orders stored", scopes=["domain:work"]) == ["tz", "pg"]
        assert ids(url, "sourdough starter", scopes=["domain:work"]) == ["tz"]  # another scope's record is out
        add(url, "pg", "The orders service stores orders in SQLite")  # replace
        assert call(url, "POST", "/search", {"query": "sqlite", "user_id": "ns/ana", "limit": 5})["results"][1][
            "memory"
        ].endswith("SQLite")
        call(url, "DELETE", "/namespaces/ns")
        assert ids(url, "orders") == []


def test_the_walk_through_shows_what_it_declares() -> None:
    page = (ROOT / "docs" / "ci-action.md").read_text(encoding="utf-8")
    (shown,) = re.findall(r"```json\n(.*?)```", page, re.S)
    with example_service() as url:
        assert json.loads(shown) == call(url, "GET", "/capabilities")


def test_max_results_caps_every_search() -> None:
    with example_service("--max-results", "1") as url:
        add(url, "a", "orders in Postgres")
        add(url, "b", "orders in Postgres replicas")
        assert len(ids(url, "orders postgres")) == 1


BUILTIN = ["builtin", "lifecycle:builtin", "conversation:builtin", "code-tasks:builtin", "haystack:builtin"]
NEEDS = {"lifecycle": "clock", "conversation": "budget", "code-tasks": "a code graph"}
"""What each kind needs that the service does not declare (docs/system-protocol.md)."""


def test_it_runs_every_builtin_suite_through_the_harness(tmp_path: Path) -> None:
    with example_service() as url:
        suites = [arg for suite in BUILTIN for arg in ("--suite", suite)]
        out = ["--out", str(tmp_path / "reports"), "--junit", str(tmp_path / "junit.xml")]
        done = subprocess.run(
            [sys.executable, "-m", "harness", "run", "--system", f"http:{url}", *suites, "-m", "bm25", *out],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "HARNESS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "200"},
        )
    assert done.returncode == 0, done.stderr[-3000:]
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "junit.xml"))
    suites_by_kind = {suite.name.split("/")[-2]: suite for suite in xml}
    assert set(suites_by_kind) == {"beliefs", "lifecycle", "conversation", "code-tasks", "haystack"}
    for kind, capability in NEEDS.items():  # not applicable, saying what it lacks: one skipped case
        (case,) = suites_by_kind[kind]
        (skipped,) = case.result
        assert isinstance(skipped, junitparser.Skipped)
        assert capability in skipped.message
    (report,) = (tmp_path / "reports").glob("run-*-latest.json")
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    beliefs = list(suites_by_kind["beliefs"])
    assert len(beliefs) == len(cases)  # one testcase per case, every one judged
    failed = [c for c in beliefs if c.result and isinstance(c.result[0], junitparser.Failure)]
    assert 0 < len(failed) < len(beliefs)
    assert not any(isinstance(c.result[0], junitparser.Error) for c in beliefs if c.result)
    # what the service declares is never what the harness finds it lacking
    lacking = [r for c in cases for r in c["reasons"] if "does not declare" in r]
    assert lacking
    assert not any(f"needs {cap!r}" in r for r in lacking for cap in ("scopes", "replace", "supersession", "pinned"))
    # the built-in haystack's questions are lexical: a keyword ranking puts every gold session first
    questions = [
        c for c in suites_by_kind["haystack"] if not (c.result and isinstance(c.result[0], junitparser.Skipped))
    ]
    assert questions
    assert all(c.is_passed for c in questions)
