"""Tenure's query clean-up (queryExpander.ts) on our own messages; each expected text is the rule
applied by hand: what is stripped, what is kept, when the code's language replaces the message."""

from __future__ import annotations

import pytest

from harness.backends.embedded import EmbeddedBackend
from harness.models import Memory
from harness.pipeline import MemoryPipeline, Mode, PipelineSettings
from harness.pipeline.memory_layer import Request
from harness.pipeline.query_cleanup import QueryCleanup, clean_query
from harness.pipeline.ruleset import BUILTIN_RULES, TENURE_HEAD_RULES, TENURE_PAPER_RULES

from .test_invariants import HashingEmbedder

PAPER, HEAD = QueryCleanup.STRIP_NOISE, QueryCleanup.STRIP_CODE_AND_NOISE
TENURE = [PAPER, HEAD]


def test_builtin_rules_search_the_message_as_written() -> None:
    message = "Why does `helm` fail at step 42?"
    assert clean_query(message, QueryCleanup.NONE) == message


@pytest.mark.parametrize("how", TENURE)
def test_a_short_message_is_searched_as_written(how: QueryCleanup) -> None:
    assert clean_query("  k8s at 3?  ", how) == "k8s at 3?"  # 9 characters: under 16, nothing stripped


@pytest.mark.parametrize("how", TENURE)
def test_noise_is_stripped(how: QueryCleanup) -> None:
    message = "Why does `helm` fail on https://ci.example.org/run/12 at step 42?"
    assert clean_query(message, how) == "Why does fail on at step"


@pytest.mark.parametrize("how", TENURE)
def test_emphasis_and_paths_go_with_their_words(how: QueryCleanup) -> None:
    message = "Is *postgres* still right for src/billing/store.ts and deadbeef42 today"
    assert clean_query(message, how) == "Is still right for and today"


@pytest.mark.parametrize("how", TENURE)
def test_a_message_is_cut_to_a_thousand_characters(how: QueryCleanup) -> None:
    assert clean_query("word " * 400, how) == ("word " * 200)[:1000]


def test_paper_keeps_code_lines_and_has_no_language_fallback() -> None:
    message = "tidy this up:\nconst total = 0;\nlet rows = [];"
    assert clean_query(message, PAPER) == "tidy this up const total = let rows = []"


def test_head_drops_code_lines_and_keeps_the_prose() -> None:
    message = "Why is the billing export slow this week?\nconst rows = await db.query(sql);"
    assert clean_query(message, HEAD) == "Why is the billing export slow this week"


@pytest.mark.parametrize(
    ("message", "searched"),
    [
        ("tidy this up:\nconst total = 0;\nlet rows = [];", "JavaScript"),  # const/let
        ("see below:\n```python\nprint(total)\n```", "Python"),  # the fence's tag
        ("why?\nfn main() { let mut n = 0; }", "Rust"),
        ("hm:\nimport alpha\nimport beta", ""),  # no known syntax: nothing is searched
    ],
)
def test_head_searches_a_mostly_code_message_by_its_language(message: str, searched: str) -> None:
    assert clean_query(message, HEAD) == searched


def test_the_pipeline_searches_the_cleaned_query() -> None:
    helm = Memory.model_validate(
        {"id": "m-helm", "user": "u", "type": "entity", "scopes": ["domain:code"], "name": "helm_charts"}
    )
    request = Request("u", ("domain:code",), "Is there a house standard for `helm charts` here?")
    found = {}
    for rules in (BUILTIN_RULES, TENURE_PAPER_RULES, TENURE_HEAD_RULES):
        pipeline = MemoryPipeline.open(EmbeddedBackend(), "cleanup", PipelineSettings(), None, rules)
        pipeline.load([helm])
        found[rules.name] = pipeline.retrieve(request).relevant_ids
    assert found == {"builtin": ("m-helm",), "tenure@paper": (), "tenure@head": ()}


@pytest.mark.parametrize("mode", [Mode.VECTOR, Mode.HYBRID])
def test_every_mode_searches_the_cleaned_query(mode: Mode) -> None:
    """Tenure hands the cleaned query to its vector search too, and skips the search when the
    clean-up leaves nothing; the built-in rules embed the message as written."""
    memories = [
        Memory.model_validate(
            {"id": f"m{i}", "user": "u", "type": "entity", "scopes": ["domain:code"], "name": f"w_{i}"}
        )
        for i in range(3)
    ]
    request = Request("u", ("domain:code",), "hm:\nimport alpha\nimport beta")  # HEAD: no language, nothing left
    found = {}
    for rules in (BUILTIN_RULES, TENURE_PAPER_RULES, TENURE_HEAD_RULES):
        pipeline = MemoryPipeline.open(EmbeddedBackend(), "cleanup", PipelineSettings(), HashingEmbedder(), rules)
        pipeline.load(memories)
        found[rules.name] = len(pipeline.retrieve(request, mode).relevant)
    assert found == {"builtin": 3, "tenure@paper": 3, "tenure@head": 0}
