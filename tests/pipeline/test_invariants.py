"""Pipeline invariants over generated corpora and requests, in every mode.

Whatever the corpus and query: no other user's memory, nothing superseded or resolved, nothing
out of scope, the budget holds, the pinned tier is exactly the active pinned memories in scope,
bm25 results are explained by a phrase in the query, and results do not depend on load order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.backends.embedded import EmbeddedBackend
from harness.models import UNIVERSAL_SCOPE, Memory, MemoryType, Status
from harness.pipeline import Context, MemoryPipeline, Mode, PipelineSettings
from harness.pipeline.matching import WordMatcher
from harness.pipeline.memory_layer import Request
from harness.text import tokenize

WORDS = ["postgres", "postgress", "redis", "k8s", "ts", "strict", "mode", "cache", "typescript", "type", "draft"]
SCOPES = ["domain:code", "domain:writing", "domain:cooking", UNIVERSAL_SCOPE]
USERS = ["u1", "u2"]


class HashingEmbedder:
    """Deterministic bag-of-words vectors: enough for the vector paths to be exercised."""

    dimensions = 16

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in tokenize(text):
                out[row, int(hashlib.sha1(word.encode()).hexdigest(), 16) % self.dimensions] += 1.0
            out[row, 0] += 0.01
        return out / np.linalg.norm(out, axis=1, keepdims=True)


phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(" ".join)


@st.composite
def corpora(draw: st.DrawFn) -> list[Memory]:
    count = draw(st.integers(min_value=1, max_value=12))
    ids = [f"m{i}" for i in range(count)]
    memories = []
    for memory_id in ids:
        kind = draw(st.sampled_from([t for t in MemoryType if t is not MemoryType.TURN]))
        status = draw(st.sampled_from(list(Status)))
        memories.append(
            Memory(
                id=memory_id,
                user=draw(st.sampled_from(USERS)),
                type=kind,
                name=draw(phrase).replace(" ", "_"),
                aliases=tuple(draw(st.lists(phrase, max_size=3, unique=True))),
                content=draw(phrase) + ".",
                scopes=tuple(draw(st.lists(st.sampled_from(SCOPES), min_size=1, max_size=2, unique=True))),
                status=status,
                superseded_by=draw(st.sampled_from(ids))
                if status is Status.SUPERSEDED and draw(st.booleans())
                else None,
                resolved_at="2024-01-01T00:00:00Z"
                if kind is MemoryType.OPEN_QUESTION and draw(st.booleans())
                else None,
                pinned=draw(st.booleans()),
                confidence=draw(st.sampled_from([0.5, 0.7, 0.9, 1.0])),
                participants=tuple(draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)))
                if kind is MemoryType.RELATION
                else (),
            )
        )
    return memories


requests = st.builds(
    Request,
    user=st.sampled_from([*USERS, "nobody"]),
    scopes=st.lists(st.sampled_from(SCOPES[:3]), min_size=1, max_size=2, unique=True).map(tuple),
    query=st.lists(st.sampled_from([*WORDS, "the", "please", "Postgres!", "K8S"]), max_size=6).map(" ".join),
    max_beliefs=st.one_of(st.none(), st.integers(min_value=0, max_value=5)),
)


def _pipeline(memories: list[Memory]) -> MemoryPipeline:
    pipeline = MemoryPipeline.open(EmbeddedBackend(), "prop", PipelineSettings(), HashingEmbedder())
    pipeline.load(memories)
    return pipeline


def _visible(memory: Memory, request: Request) -> bool:
    scopes = {*request.scopes, UNIVERSAL_SCOPE}
    return memory.user == request.user and memory.injectable and bool(scopes & set(memory.scopes))


def _check(context: Context, memories: dict[str, Memory], request: Request, mode: Mode) -> None:
    tiers = [*context.pinned, *context.relevant_ids, *context.open_questions]
    for memory_id in tiers:
        memory = memories[memory_id]
        assert memory.user == request.user, "another user's memory surfaced"
        assert memory.injectable, "a superseded or resolved memory surfaced"
        assert _visible(memory, request), "an out-of-scope memory surfaced"
    assert len(set(tiers)) == len(tiers), "a memory appears in two tiers"
    if request.max_beliefs is not None:
        assert len(context.pinned) + len(context.relevant) <= request.max_beliefs
    eligible_pinned = {
        m.id
        for m in memories.values()
        if _visible(m, request) and m.pinned and m.status is Status.ACTIVE and m.type is not MemoryType.OPEN_QUESTION
    }
    assert set(context.pinned) <= eligible_pinned
    if request.max_beliefs is None or request.max_beliefs >= len(eligible_pinned):
        assert set(context.pinned) == eligible_pinned, "an active pinned memory in scope is missing"
    assert all(memories[i].type is MemoryType.OPEN_QUESTION for i in context.open_questions)
    assert all(memories[i].type is not MemoryType.OPEN_QUESTION for i in context.relevant_ids)
    if mode is Mode.BM25:
        matcher = WordMatcher(5, 2)
        query = tokenize(request.query)
        for item in context.relevant:
            if item.via.startswith("relation:"):
                relation = item.via.removeprefix("relation:")
                assert relation in context.relevant_ids or relation in context.evicted
                assert item.id in memories[relation].participants
            else:
                assert matcher.occurs(tuple(tokenize(item.matched)), query), "surfaced without its phrase in the query"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora(), requests)
def test_invariants_hold_in_every_mode(memories: list[Memory], request: Request) -> None:
    by_id = {m.id: m for m in memories}
    forward, backward = _pipeline(memories), _pipeline(list(reversed(memories)))
    for mode in Mode:
        context = forward.retrieve(request, mode)
        _check(context, by_id, request, mode)
        assert context == forward.retrieve(request, mode), "not deterministic"
        assert context == backward.retrieve(request, mode), "depends on load order"


@settings(max_examples=60, deadline=None)
@given(corpora(), phrase)
def test_a_created_memory_is_visible_to_the_next_query(memories: list[Memory], alias: str) -> None:
    pipeline = _pipeline(memories)
    created = Memory(
        id="new", user="u1", type=MemoryType.ENTITY, name="brand_new", aliases=(alias,), scopes=("domain:code",)
    )
    pipeline.put(created)
    context = pipeline.retrieve(Request("u1", ("domain:code",), f"about {alias} today"))
    assert "new" in context.relevant_ids
    fresh = _pipeline([*memories, created])
    assert context == fresh.retrieve(Request("u1", ("domain:code",), f"about {alias} today")), (
        "upsert statistics differ from a fresh load"
    )
