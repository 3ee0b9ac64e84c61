"""Fuzz: whatever a service answers `POST /search` (any JSON, results whose ids and memories are any
text, lone surrogates and workflow commands included, error bodies, bytes that are no UTF-8), a
`harness ci` run over it ends with an exit code and no traceback, a JUnit file that parses, a step
summary and outputs that are not empty, no 0-byte file, and no line of its output that GitHub's
runner would read as a workflow command. Few examples, run in process: seconds, not minutes."""

from __future__ import annotations

import json
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from contextlib import nullcontext
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.backends.ledger import STATE_DIR_ENV
from harness.evaluation import runner
from harness.systems.http_client import MAX_FAILURES_ENV
from tests.faults.helpers import write_suite
from tests.faults.hostile_service import Hostile, serving
from tests.faults.test_hostile_text import commands_at_line_start, empty_files

Cli = Callable[..., tuple[int, str, str]]

HOSTILE = [
    "\ud800",
    "::error::INJECTED",
    "##[error]INJECTED",
    "a" * 150 + " ::error::INJECTED",
    "x\n::warning::INJECTED",
    "\x1b[31m\x01\x9b",
    "[/x] [bold]",
    "<img src=x onerror=alert(1)>",
    "| `` ** _",
    "m-0",
]
"""Text a hostile service would choose; hypothesis draws others beside them."""

texts = st.one_of(st.sampled_from(HOSTILE), st.text(st.characters(exclude_categories=()), max_size=30))
"""Any text: surrogates too (hypothesis leaves them out unless asked)."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)

hits = st.fixed_dictionaries({"id": texts}, optional={"memory": texts, "score": json_values})


def _json(value: Any) -> bytes:
    """JSON as a service may send it: `\\ud800` escapes for surrogates, NaN and Infinity as Python writes them."""
    return json.dumps(value, ensure_ascii=True).encode("ascii")


answers = st.one_of(
    st.tuples(st.just(200), json_values.map(_json)),
    st.tuples(st.just(200), st.lists(hits, max_size=3).map(lambda found: _json({"results": found}))),
    st.tuples(st.sampled_from([400, 404, 500]), texts.map(lambda t: _json({"error": t}))),
    st.tuples(st.sampled_from([200, 400]), texts.map(lambda t: t.encode("utf-8", "surrogatepass"))),
)
"""A status and the bytes of its body."""


def _answering(status: int, body: bytes) -> Callable[[Hostile, BaseHTTPRequestHandler], None]:
    def fault(_hostile: Hostile, request: BaseHTTPRequestHandler) -> None:
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    return fault


@pytest.fixture(autouse=True)
def _quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No HTML page (its cost, not its text, is what is left out: the page reads the JSON, whose
    text is what is checked), and a service never counted lost: every answer reaches a report."""
    monkeypatch.setattr(runner, "page_process", lambda: nullcontext(lambda _json: "<p>not drawn here</p>"))
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    monkeypatch.setenv(MAX_FAILURES_ENV, "100")


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(answer=answers)
def test_any_search_answer_goes_through_run_junit_and_summary(
    cli: Cli, tmp_path: Path, answer: tuple[int, bytes]
) -> None:
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    suite = write_suite(folder / "suite", 2)
    service = Hostile()
    service.faults[("POST", "/search")] = _answering(*answer)
    with serving(service) as url:
        code, out, err = cli(
            "ci", "--systems", f"http:{url}", "--suites", str(suite), "--modes", "bm25", "--no-check-baseline",
            "--out", str(folder / "out"), "--summary", str(folder / "summary.md"), "--outputs", str(folder / "o.txt"),
        )  # fmt: skip
    assert "Traceback" not in err, err
    assert code in (0, 1, 3), err
    ET.parse(folder / "out" / "junit.xml")  # well-formed
    assert commands_at_line_start(out) == []
    assert commands_at_line_start(err) == []
    assert empty_files(folder) == []
    assert (folder / "summary.md").read_text(encoding="utf-8").startswith("## memory-retrieval-harness: ")
    assert "pass-rate=" in (folder / "o.txt").read_text(encoding="utf-8")
