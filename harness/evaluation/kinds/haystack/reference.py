"""The haystack port over the reference pipeline (`pipeline/haystack.py`): each haystack's turns
analysed ahead in a worker process, its turns and questions embedded, then indexed (turns and, as
its granularity needs, whole sessions) and searched with the harness's query terms."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from harness.backends.base import Backend
from harness.embeddings import Embedder
from harness.evaluation import teardown
from harness.evaluation.kinds.haystack.port import Rankings
from harness.models.haystack import Granularity, Haystack, Question
from harness.pipeline.ahead import analysed_ahead
from harness.pipeline.haystack import Fusion, HaystackIndex, embedding_texts, query_terms
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode


@dataclass(frozen=True)
class ReferenceHaystacks:
    """The pipeline on one engine: `embedder` is None when no mode of the run needs vectors."""

    backend: Backend
    modes: tuple[Mode, ...]
    granularity: Granularity
    embedder: TextEmbedder | None
    fusion: Fusion

    @property
    def embedding_device(self) -> str | None:
        return str(self.embedder.device) if isinstance(self.embedder, Embedder) else None

    def read(self, haystacks: Iterator[Haystack]) -> Iterator[_Read]:
        for haystack, analysed in analysed_ahead(haystacks):
            yield _Read(self, haystack, analysed)


@dataclass(frozen=True)
class _Read:
    pipeline: ReferenceHaystacks
    haystack: Haystack
    analysed: list[str]
    """Each turn's analysed text, as `HaystackIndex` indexes it."""

    def prepare(self, asked: Sequence[Question]) -> _Embedded:
        """The turns' vectors and the questions' (none without an embedder)."""
        embedder = self.pipeline.embedder
        if embedder is None:
            return _Embedded(self, None, {})
        vectors = embedder.embed(embedding_texts(self.haystack))
        return _Embedded(self, vectors, dict(zip(asked, embedder.embed([q.text for q in asked]), strict=True)))


@dataclass(frozen=True)
class _Embedded:
    read: _Read
    vectors: np.ndarray | None
    query_vectors: dict[Question, np.ndarray]

    def ingest(self, namespace: str) -> _Indexed:
        pipeline, read = self.read.pipeline, self.read
        index = HaystackIndex(
            pipeline.backend,
            namespace,
            read.haystack,
            pipeline.granularity,
            pipeline.modes,
            self.vectors,
            fusion=pipeline.fusion,
            analysed=read.analysed,
        )
        return _Indexed(index, read.haystack.id, self.query_vectors)


@dataclass(frozen=True)
class _Indexed:
    index: HaystackIndex
    haystack: str
    query_vectors: dict[Question, np.ndarray]

    def search(self, question: Question, mode: Mode) -> Rankings:
        return self.index.search(mode, query_terms(question.text), self.query_vectors.get(question))

    def close(self) -> None:
        teardown.drop(self.index, f"haystack {self.haystack!r}")
