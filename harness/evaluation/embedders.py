"""The embedders runs use, and embedding a run's texts before it starts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from harness.embeddings import text_key
from harness.embeddings.embedder import Embedder
from harness.evaluation.kind import CaseKind
from harness.evaluation.model_check import load_model
from harness.models.haystack import DatasetReader
from harness.pipeline.haystack import embedding_texts
from harness.pipeline.memory_layer import TextEmbedder
from harness.shards import Shard
from harness.suites.datasets import Selection
from harness.suites.resolve import cases_dir


def suite_embedder(model: str, device: str = "auto") -> Embedder:
    """Committed embeddings first, then the user cache, then the model.

    The model is loaded only if some text is not cached, through `load_model`'s exit-code rule.
    """
    return Embedder(model, read_dirs=[cases_dir() / "embeddings"], device=device, loader=load_model)


def dataset_embedder(model: str, device: str, preload: bool) -> Embedder:
    """An embedder whose model, when no vector of it is cached at all, is loaded now: a bad one
    fails before the run rather than at its first haystack."""
    embedder = Embedder(model, loader=load_model, device=device)
    if preload and embedder.cache.dimensions is None:
        encoder = load_model(model, embedder.device)
        embedder = Embedder(model, loader=lambda _name, _device: encoder, device=device)
    return embedder


def embed_ahead(kind: CaseKind[Any], embedder: TextEmbedder) -> None:
    """Embed every text the kind will ask for, so a model that cannot load fails before the run."""
    embedder.embed(list(dict.fromkeys(kind.texts())))


@dataclass(frozen=True, slots=True)
class EmbedCount:
    """What `embed_dataset` found: distinct texts the selection needs, and how many it computed."""

    texts: int
    computed: int


def embed_dataset(
    selection: Selection,
    embedder: Embedder,
    batch: int = 8192,
    on_plan: Callable[[int, int], None] | None = None,
    part: Shard | None = None,
) -> EmbedCount:
    """Cache the vectors a vector or hybrid run of this selection needs (with `part`, only the
    distinct texts that shard owns by the hash of their content: the shards' caches together
    hold every vector, each computed once).

    Two streamed passes: the first counts distinct texts and the ones not cached (reported to
    `on_plan(texts, missing)`, so a progress bar has a total); the second embeds the missing ones
    `batch` at a time. The largest files never hold all their texts at once, and the embedder
    stores every finished shard, so an interrupted run resumes where it stopped.
    """
    reader, selected = selection.reader, selection.selected
    seen: set[str] = set()
    missing = 0
    for texts in _haystack_texts(reader, selected, part):
        fresh = [t for t in dict.fromkeys(texts) if text_key(t) not in seen]
        seen.update(text_key(t) for t in fresh)
        missing += sum(v is None for v in embedder.cache.lookup(fresh))
    if on_plan is not None:
        on_plan(len(seen), missing)
    pending: dict[str, None] = {}
    computed = 0
    for texts in _haystack_texts(reader, selected, part):
        pending.update((t, None) for t, v in zip(texts, embedder.cache.lookup(texts), strict=True) if v is None)
        if len(pending) >= batch:
            embedder.embed(list(pending))
            computed += len(pending)
            pending.clear()
    if pending:
        embedder.embed(list(pending))
    return EmbedCount(len(seen), computed + len(pending))


def _haystack_texts(reader: DatasetReader, selected: frozenset[int] | None, part: Shard | None) -> Iterator[list[str]]:
    """Per haystack, every text a vector run embeds (its turns and its questions), those `part` owns."""
    for haystack in reader.read(selected):
        texts = [*embedding_texts(haystack), *(q.text for q in haystack.questions)]
        yield texts if part is None else [t for t in texts if part.owns(t)]
