"""What `cases validate` accepts runs on every local backend; what some engine cannot hold is
refused at load, in one line naming the file, the field and the limit.

The limits (docs/exit-codes.md, "Limits"): ids, users and scopes 1-255 characters without NUL; words at most
255 characters; a name, alias, content or query at most 100,000 characters; no lone surrogates.
"""

from __future__ import annotations

import itertools
import json
import string
from pathlib import Path
from typing import Any

import pytest

from harness.backends.base import Backend
from harness.errors import CaseFileError
from harness.evaluation.kinds.beliefs.reference import ReferencePort
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.runner import SuiteRunner
from harness.limits import MAX_ID_CHARS, MAX_TEXT_CHARS, MAX_WORD_CHARS
from harness.pipeline import Mode, PipelineSettings
from harness.suites import load_suite
from tests.faults.helpers import WIDE


def memory(memory_id: str, name: str, **extra: Any) -> dict[str, Any]:
    return {"id": memory_id, "user": "u", "type": "entity", "name": name, "scopes": ["domain:a"], **extra}


def case(query: str, relevant: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    expect = {} if relevant is None else {"relevant": {"should_only_include": relevant}}
    return {"id": "c", "scopes": ["domain:a"], "query": query, "expect": expect, **extra}


def write_suite(folder: Path, memories: list[dict[str, Any]], cases: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.json").write_text(json.dumps({"default_user": "u", "memories": memories}), encoding="utf-8")
    (folder / "static.json").write_text(json.dumps({"cases": cases}), encoding="utf-8")
    return folder


def run(backend: Backend, folder: Path) -> list[CaseResult]:
    runner = SuiteRunner(ReferencePort(backend, PipelineSettings(), None), backend.name, load_suite(str(folder)))
    try:
        return [runner.run_static(c, Mode.BM25) for c in runner.suite.static_cases]
    finally:
        runner.close()


def assert_passed(results: list[CaseResult]) -> None:
    for result in results:
        assert result.error is None, result.error
        assert result.passed, result.reasons


def short_words(count: int) -> list[str]:
    """Distinct 4-letter words starting with z: no stopwords, and exact matching only (under 5)."""
    letters = itertools.product(string.ascii_lowercase, repeat=3)
    return ["z" + "".join(t) for t in itertools.islice(letters, count)]


# -- accepted at the limits: runs on every backend ---------------------------------------------


def test_values_at_every_limit_run(backend: Backend, tmp_path: Path) -> None:
    """The longest id, user and scope, the longest word and the longest name, in 4-byte characters."""
    user = "𝔲" * MAX_ID_CHARS  # noqa: RUF001 - a 4-byte letter on purpose
    long_id, scope = WIDE * MAX_ID_CHARS, "domain:" + WIDE * (MAX_ID_CHARS - 7)
    word = WIDE * MAX_WORD_CHARS
    filler = " ".join(short_words(MAX_TEXT_CHARS // 5))
    name = (word + " " + filler)[:MAX_TEXT_CHARS]
    memories = [
        {"id": long_id, "user": user, "type": "entity", "name": name, "aliases": [word], "scopes": [scope]},
        {"id": "other", "user": user, "type": "entity", "name": "unrelated", "scopes": [scope]},
    ]
    query = {"id": "c", "user": user, "scopes": [scope], "query": f"about {word}"}
    cases = [{**query, "expect": {"relevant": {"should_only_include": [long_id]}}}]
    assert_passed(run(backend, write_suite(tmp_path, memories, cases)))


def test_query_of_2000_distinct_known_words(backend: Backend, tmp_path: Path) -> None:
    """Redis and Valkey built the posting-list union with one Lua `unpack`, which takes a few
    thousand values: 2,000 words over two fields failed with `too many results to unpack`."""
    words = short_words(2000)
    memories = [memory(f"m{i:04d}", w) for i, w in enumerate(words)]
    cases = [case(" ".join(words), [m["id"] for m in memories])]
    assert_passed(run(backend, write_suite(tmp_path, memories, cases)))


def test_relevant_tier_is_not_capped_without_a_budget(backend: Backend, tmp_path: Path) -> None:
    """cases/README.md: "No budget: no cap". The engine was asked for 100 candidates at most."""
    memories = [memory(f"m{i:03d}", "kafka") for i in range(150)]
    ids = [m["id"] for m in memories]
    cases = [case("kafka", ids), {**case("kafka"), "id": "b", "budget": {"max_beliefs": 120}}]
    results = run(backend, write_suite(tmp_path, memories, cases))
    assert_passed(results)
    unbounded, budgeted = results
    assert len(unbounded.retrieved["relevant"]) == 150
    assert len(budgeted.retrieved["relevant"]) == 120
    assert len(budgeted.retrieved["evicted"]) == 30


def test_accented_words_rank_alike_under_a_budget(backend: Backend, tmp_path: Path) -> None:
    """`café` and `cafe` are two terms everywhere: folding them on one engine (FTS5's unicode61
    did) raises n for `café` from 1 to 4, above `zebra`'s 3, and the budget keeps the wrong one."""
    memories = [
        memory("accent", "café"),
        memory("plain1", "cafe"),
        memory("plain2", "cafe bar"),
        memory("plain3", "cafe au lait"),
        memory("animal", "zebra"),
        memory("animal2", "zebra crossing"),
        memory("animal3", "zebra stripes"),
    ]
    expect = {"relevant": {"should_only_include": ["accent"]}}
    cases = [{**case("café zebra"), "budget": {"max_beliefs": 1}, "expect": expect}]
    assert_passed(run(backend, write_suite(tmp_path, memories, cases)))


# -- refused at load: one line naming the file, the field and the limit --------------------------


NUL = "a\x00b"
REFUSED = {
    "nul in memory id": ([memory(NUL, "x")], [case("x")], "corpus.json", "id", "NUL"),
    "nul in user": ([memory("m", "x", user=NUL)], [case("x")], "corpus.json", "user", "NUL"),
    "nul in scope": ([memory("m", "x", scopes=["domain:" + NUL])], [case("x")], "corpus.json", "scopes", "NUL"),
    "nul in case user": ([memory("m", "x")], [case("x", user=NUL)], "static.json", "user", "NUL"),
    "nul in case scope": ([memory("m", "x")], [case("x", scopes=["domain:" + NUL])], "static.json", "scopes", "NUL"),
    "long id": ([memory("i" * (MAX_ID_CHARS + 1), "x")], [case("x")], "corpus.json", "id", "at most 255"),
    "long participant": (
        [memory("m", "x", type="relation", participants=["p" * (MAX_ID_CHARS + 1)])],
        [case("x")],
        "corpus.json",
        "participants",
        "at most 255",
    ),
    "long word in name": ([memory("m", "w" * 10_000)], [case("x")], "corpus.json", "name", "at most 255"),
    "long word in alias": (
        [memory("m", "x", aliases=["w" * 256])],
        [case("x")],
        "corpus.json",
        "aliases",
        "at most 255",
    ),
    "long word in content": (
        [memory("m", "x", content="w" * 256)],
        [case("x")],
        "corpus.json",
        "content",
        "at most 255",
    ),
    "5 MB name": ([memory("m", "word " * 1_000_000)], [case("x")], "corpus.json", "name", "at most 100000"),
    "long query": ([memory("m", "x")], [case("x " * 50_001)], "static.json", "query", "at most 100000"),
    "surrogate in name": ([memory("m", "caf\ud800")], [case("x")], "corpus.json", "name", "U+D800"),
    "surrogate in query": ([memory("m", "x")], [case("x\udfff")], "static.json", "query", "U+DFFF"),
    "surrogate in description": (
        [memory("m", "x")],
        [case("x", description="\ud800")],
        "static.json",
        "description",
        "U+D800",
    ),
    "surrogate in prelude check": (
        [memory("m", "x")],
        [{**case("x"), "expect": {"prelude": {"contains": ["ok", "\ud83d"]}}}],
        "static.json",
        "expect.prelude.contains",
        "U+D83D",
    ),
}


@pytest.mark.parametrize("situation", list(REFUSED))
def test_refused_at_load_in_one_line(situation: str, tmp_path: Path) -> None:
    memories, cases, file, field, limit = REFUSED[situation]
    folder = tmp_path / "suite"
    folder.mkdir()
    # json.dumps writes a lone surrogate as the `\ud800` escape, exactly as a user's file would hold it.
    (folder / "corpus.json").write_text(json.dumps({"default_user": "u", "memories": memories}), encoding="utf-8")
    (folder / "static.json").write_text(json.dumps({"cases": cases}), encoding="utf-8")
    with pytest.raises(CaseFileError) as caught:
        load_suite(str(folder))
    message = str(caught.value)
    assert "\n" not in message, message
    assert caught.value.path.name == file, message
    assert field in (caught.value.field or ""), message
    assert limit in message, message
