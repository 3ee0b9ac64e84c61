"""The embedders runs use, and embedding a run's texts before it starts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from harness.embeddings import Device, TextEncoder, parse_device, text_key
from harness.embeddings.embedder import Embedder
from harness.errors import Interrupted
from harness.evaluation.kind import CaseKind
from harness.evaluation.model_check import load_model
from harness.models.haystack import Haystack
from harness.pipeline.haystack import embedding_texts
from harness.pipeline.memory_layer import TextEmbedder
from harness.shards import Shard
from harness.suites.datasets import Selection
from harness.suites.resolve import cases_dir


def suite_embedder(model: str, device: str = "auto", cache_dir: Path | None = None) -> Embedder:
    """Committed embeddings first, then the user cache (or `cache_dir`, where new vectors go), then the model.

    `auto` is the CPU here: the committed vectors were made there, and a GPU's (cached apart, their
    last bits differ) would make a suite's numbers depend on the machine. The model is loaded only
    if some text is not cached, through `load_model`'s exit-code rule.
    """
    on = Device.CPU if parse_device(device) is Device.AUTO else device
    return Embedder(model, read_dirs=[cases_dir() / "embeddings"], cache_dir=cache_dir, device=on, loader=load_model)


def embed_ahead(kind: CaseKind[Any], embedder: TextEmbedder) -> None:
    """Embed every text the kind will ask for, so a model that cannot load fails before the run."""
    embedder.embed(list(dict.fromkeys(kind.texts())))


@dataclass(frozen=True, slots=True)
class EmbedCount:
    """What `embed_streamed` found: distinct texts, and how many of them it computed."""

    texts: int
    computed: int


def embed_streamed(
    texts: Callable[[], Iterable[str]],
    embedder: Embedder,
    batch: int = 8192,
    on_plan: Callable[[int, int], None] | None = None,
) -> EmbedCount:
    """Cache the vectors of every text `texts()` yields, reading them twice and never holding them all.

    The first pass counts distinct texts and the ones not cached (reported to `on_plan(texts,
    missing)`, so a progress bar has a total); the second embeds the missing ones `batch` at a
    time, so the embedder can spread them over its workers (started once, kept for every batch).
    The embedder stores every finished shard, so an interrupted run resumes where it stopped.
    """
    seen: set[str] = set()
    missing = 0
    for chunk in _chunks(texts()):
        fresh = {key: t for t in dict.fromkeys(chunk) if (key := text_key(t)) not in seen}
        seen.update(fresh)
        missing += sum(v is None for v in embedder.cache.lookup(list(fresh.values())))
    if on_plan is not None:
        on_plan(len(seen), missing)
    if not missing:
        return EmbedCount(len(seen), 0)
    pending: dict[str, None] = {}
    computed = 0
    with embedder.workers_kept():
        for chunk in _chunks(texts()):
            unique = list(dict.fromkeys(chunk))
            pending.update((t, None) for t, v in zip(unique, embedder.cache.lookup(unique), strict=True) if v is None)
            if len(pending) >= batch:
                embedder.embed(list(pending))
                computed += len(pending)
                pending.clear()
        if pending:
            embedder.embed(list(pending))
    return EmbedCount(len(seen), computed + len(pending))


class FillBar(Protocol):
    """Where a cache fill shows its progress: `plan` once the texts are counted, then `advance`."""

    def plan(self, description: str, total: int) -> None: ...

    def advance(self, count: int) -> None: ...


def fill_cache(
    texts: Callable[[], Iterable[str]],
    embedder: Embedder,
    bar: FillBar,
    check: Callable[[str, Device], TextEncoder] | None = None,
) -> EmbedCount:
    """Embed the texts `texts()` yields that the cache lacks (`embed_streamed`), on `bar`; after
    Ctrl-C, the `Interrupted` says that what was embedded is kept and how to resume. `check` loads
    the model here before anything is computed (a run's exit-code rule for a bad model), and the
    embedder computes with it where it computes in this process."""
    done = 0

    def plan(_texts: int, missing: int) -> None:
        if missing and check is not None:
            embedder.use_encoder(check(embedder.model, embedder.device))
        bar.plan(f"embedding with {embedder.model} on {embedder.device}", missing)

    def advance(count: int) -> None:
        nonlocal done
        done += count
        bar.advance(count)

    embedder.on_progress = advance
    try:
        return embed_streamed(texts, embedder, on_plan=plan)
    except Interrupted as exc:
        exc.detail = (
            f"{done} texts embedded this run are kept in {embedder.cache.folder}; run the same command again to resume"
        )
        raise


def selection_texts(selection: Selection, part: Shard | None = None) -> Iterator[str]:
    """Every text a vector run of the selection embeds, haystack by haystack (its turns, then its
    questions); with `part`, only those that shard owns."""
    for haystack in selection.reader.read(selection.selected):
        yield from (t for t in haystack_texts(haystack) if part is None or part.owns(t))


def haystack_texts(haystack: Haystack) -> list[str]:
    """The texts a vector run of one haystack embeds: its turns, then its questions."""
    return [*embedding_texts(haystack), *(q.text for q in haystack.questions)]


def _chunks(texts: Iterable[str], size: int = 4096) -> Iterator[list[str]]:
    """`texts` in lists of `size` (the last shorter), so cache lookups go many at a time."""
    chunk: list[str] = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
