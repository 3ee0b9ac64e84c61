"""Ruleset rules that need more memories or another mode than a fixture case: tier limits, the
vector baseline's size and filters, the empty query, the embedded text, and the fuzzy guards."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.backends.embedded import EmbeddedBackend
from harness.models import Memory, MemoryType
from harness.pipeline import MemoryPipeline, Mode, PipelineSettings
from harness.pipeline.matching import WordMatcher
from harness.pipeline.memory_layer import Request
from harness.pipeline.ruleset import BUILTIN_RULES, TENURE_HEAD_RULES, TENURE_PAPER_RULES, Ruleset
from harness.pipeline.settings import SURFACE_FIELDS
from harness.pipeline.surface import embedding_text

from .test_invariants import HashingEmbedder

CODE = ("domain:code",)


def memory(memory_id: str, **fields) -> Memory:
    return Memory.model_validate({"id": memory_id, "user": "u", "type": "entity", "scopes": CODE, **fields})


def pipeline(memories: list[Memory], rules: Ruleset) -> MemoryPipeline:
    opened = MemoryPipeline.open(EmbeddedBackend(), "rules", PipelineSettings(), HashingEmbedder(), rules)
    opened.load(memories)
    return opened


# 45 memories sharing one alias: more than any Tenure limit
CROWD = [memory(f"m{i:02d}", name=f"widget_{i:02d}", aliases=("shared widget",)) for i in range(45)]
# the first 12 pinned, newest reinforced first
PINNED_CROWD = [
    Memory.model_validate({**m.model_dump(), "pinned": True, "last_reinforced_at": f"2024-01-{31 - i:02d}T00:00:00Z"})
    if i < 12
    else m
    for i, m in enumerate(CROWD)
]


@pytest.mark.parametrize(
    ("rules", "expected"), [(TENURE_PAPER_RULES, 20), (TENURE_HEAD_RULES, 20), (BUILTIN_RULES, 45)]
)
def test_relevant_tier_limit_is_the_default_budget(rules: Ruleset, expected: int) -> None:
    """Tenure's evaluation builds every context with maxBeliefs 20 unless the case sets one."""
    context = pipeline(CROWD, rules).retrieve(Request("u", CODE, "the shared widget"))
    assert len(context.relevant) == expected
    assert len(context.evicted) == 45 - expected


@pytest.mark.parametrize("rules", [TENURE_PAPER_RULES, TENURE_HEAD_RULES, BUILTIN_RULES])
def test_a_case_budget_replaces_the_default(rules: Ruleset) -> None:
    """Tenure searches with the case's maxBeliefs as its limit: a budget of 44 keeps 44."""
    context = pipeline(CROWD, rules).retrieve(Request("u", CODE, "the shared widget", max_beliefs=44))
    assert len(context.relevant) == 44


@pytest.mark.parametrize(
    ("rules", "expected"), [(TENURE_PAPER_RULES, 10), (TENURE_HEAD_RULES, 10), (BUILTIN_RULES, 12)]
)
def test_pinned_tier_limit(rules: Ruleset, expected: int) -> None:
    """Tenure's contextBuilder asks listPinnedFacts for maxPinnedFacts (10), newest reinforced first."""
    context = pipeline(PINNED_CROWD, rules).retrieve(Request("u", CODE, ""))
    assert len(context.pinned) == expected
    if rules is not BUILTIN_RULES:
        assert context.pinned == tuple(f"m{i:02d}" for i in range(10))


@pytest.mark.parametrize("rules", [TENURE_PAPER_RULES, TENURE_HEAD_RULES])
def test_default_budget_counts_pinned_first(rules: Ruleset) -> None:
    """10 pinned fill half of the default 20; the relevant tier keeps the other 10."""
    context = pipeline(PINNED_CROWD, rules).retrieve(Request("u", CODE, "the shared widget"))
    assert (len(context.pinned), len(context.relevant)) == (10, 10)


@pytest.mark.parametrize(("rules", "expected"), [(TENURE_HEAD_RULES, 20), (BUILTIN_RULES, 5)])
def test_vector_baseline_size_has_no_floor(rules: Ruleset, expected: int) -> None:
    context = pipeline(CROWD, rules).retrieve(Request("u", CODE, "nothing alike at all"), Mode.VECTOR)
    assert len(context.relevant) == expected


@pytest.mark.parametrize("mode", [Mode.VECTOR, Mode.HYBRID])
@pytest.mark.parametrize("rules", [TENURE_PAPER_RULES, TENURE_HEAD_RULES, BUILTIN_RULES])
def test_empty_query_gives_no_relevant_tier_in_any_mode(rules: Ruleset, mode: Mode) -> None:
    for query in ("", "   "):
        assert pipeline(CROWD, rules).retrieve(Request("u", CODE, query), mode).relevant == ()


@pytest.mark.parametrize("mode", list(Mode))
def test_expertise_never_relevant_in_any_mode(mode: Mode) -> None:
    expert = memory("m-expert", type="preference", subtype="expertise", name="query_tuning")
    memories = [expert, memory("m-other", name="query_planner")]
    query = Request("u", CODE, "query tuning")
    assert "m-expert" not in pipeline(memories, TENURE_HEAD_RULES).retrieve(query, mode).relevant_ids
    allowed = replace(TENURE_HEAD_RULES, relevant_excluded_subtypes=frozenset())
    assert "m-expert" in pipeline(memories, allowed).retrieve(query, mode).relevant_ids


def test_tenure_embeds_the_name_as_written() -> None:
    m = memory("m", name="eslint_config", aliases=("lint rules", "eslint"))
    assert embedding_text(m, SURFACE_FIELDS, as_written=True) == "eslint_config lint rules eslint"
    assert embedding_text(m, SURFACE_FIELDS) == "eslint config. lint rules, eslint"
    seen: list[str] = []

    class Recording(HashingEmbedder):
        def embed(self, texts):
            seen.extend(texts)
            return super().embed(texts)

    opened = MemoryPipeline.open(EmbeddedBackend(), "emb", PipelineSettings(), Recording(), TENURE_HEAD_RULES)
    opened.load([m])
    assert seen == ["eslint_config lint rules eslint"]


def test_pinned_open_questions_only_under_tenure() -> None:
    question = memory("m-q", type=MemoryType.OPEN_QUESTION.value, name="cache_ttl")
    request = Request("u", CODE, "what cache ttl")
    assert pipeline([question], TENURE_HEAD_RULES).retrieve(request).open_questions == ()
    assert pipeline([question], BUILTIN_RULES).retrieve(request).open_questions == ("m-q",)


@pytest.mark.parametrize(
    ("query_word", "word", "tenure", "builtin"),
    [
        ("helms", "helm", True, False),  # one edit on a short word: no minimum length under Tenure
        ("yelm", "helm", False, False),  # an edit inside the two-character prefix never matches
        ("ts", "tsx", False, False),  # a query word all prefix has no room for an edit
        ("tsx", "ts", True, False),
        ("postgre", "postgres", True, True),
        ("type", "typescript", False, False),  # a prefix alone is not a match
    ],
)
def test_fuzzy_word_rules(query_word: str, word: str, tenure: bool, builtin: bool) -> None:
    def matcher(rules: Ruleset) -> WordMatcher:
        return WordMatcher(rules.fuzzy_min_length, rules.fuzzy_prefix)

    assert matcher(TENURE_HEAD_RULES).matches(query_word, word) is tenure
    assert matcher(TENURE_PAPER_RULES).matches(query_word, word) is tenure
    assert matcher(BUILTIN_RULES).matches(query_word, word) is builtin


def test_multiword_phrases_match_exactly_under_tenure() -> None:
    query = ["add", "request", "throttles"]
    tenure = WordMatcher(TENURE_HEAD_RULES.fuzzy_min_length, TENURE_HEAD_RULES.fuzzy_prefix, False)
    assert not tenure.occurs(("request", "throttle"), query)
    assert tenure.occurs(("throttle",), query)  # one word: fuzzy
    assert WordMatcher(5, 2).occurs(("request", "throttle"), query)


@pytest.mark.parametrize(
    ("phrase", "tenure"),
    [("request throttle", True), ("strict_null_checks", False), ("type-safe", True), ("a b c", False)],
)
def test_names_longer_than_two_words_are_not_searchable_under_tenure(phrase: str, tenure: bool) -> None:
    assert TENURE_PAPER_RULES.searchable(phrase) is tenure
    assert BUILTIN_RULES.searchable(phrase)
