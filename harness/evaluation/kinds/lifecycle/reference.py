"""The lifecycle port over the harness's own pipeline (`pipeline/lifecycle/`): its store on the
run's engine, its retrieval under a ruleset (`harness` or `mnemonic-8ecf3ab`), its consolidation;
unlike a protocol system it shows every memory's state and what each cycle did."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.backends.base import Backend
from harness.evaluation.kinds.lifecycle.port import Observed
from harness.models.scenario import Scenario
from harness.pipeline.lifecycle.consolidation import CycleReport
from harness.pipeline.lifecycle.memory import ScenarioMemory, Seeded
from harness.pipeline.lifecycle.retrieval import Ranked
from harness.pipeline.lifecycle.rules import LifecycleRules
from harness.pipeline.lifecycle.settings import LifecycleSettings
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode


@dataclass(frozen=True)
class ReferenceAdapter:
    """`embedder` gives every vector (duplicate detection compares them in every mode)."""

    backend: Backend
    embedder: TextEmbedder
    settings: LifecycleSettings
    rules: LifecycleRules

    def open(self, scenario: Scenario, mode: Mode) -> ReferencePort:
        return ReferencePort(self, [q.query for q in scenario.queries], mode)


class ReferencePort:
    """One scenario on a namespace of its own. The queries are embedded together, after the memories, as
    one batch each (the batches the pipeline always embedded), and only in the modes that search vectors."""

    def __init__(self, adapter: ReferenceAdapter, queries: Sequence[str], mode: Mode):
        self._adapter = adapter
        self._queries = queries
        self._mode = mode
        self._vectors: dict[str, np.ndarray] | None = None
        self._memory: ScenarioMemory | None = None
        self._now = 0.0
        self._cycles: list[CycleReport] = []

    @property
    def _stored(self) -> ScenarioMemory:
        if self._memory is None:
            raise RuntimeError("the scenario's memories were never added")
        return self._memory

    def add(self, seeded: Seeded) -> None:
        a = self._adapter
        namespace = f"lc{uuid.uuid4().hex[:12]}"
        self._memory = ScenarioMemory.open(a.backend, namespace, seeded, a.embedder, self._mode, a.settings, a.rules)

    def advance(self, minute: float) -> None:
        self._now = minute

    def _vector(self, query: str) -> np.ndarray | None:
        if not self._mode.needs_vectors:
            return None
        if self._vectors is None:
            self._vectors = dict(zip(self._queries, self._adapter.embedder.embed(list(self._queries)), strict=True))
        return self._vectors[query]

    def search(self, query: str, top: int) -> tuple[Ranked, ...]:
        return self._stored.search(query, self._vector(query), self._now, top)

    def record_access(self, ids: Sequence[str]) -> None:
        self._stored.access(ids, self._now)

    def consolidate(self) -> None:
        self._cycles.append(self._stored.consolidate(self._now))

    def observe(self) -> Observed:
        return Observed(self._stored.records(), tuple(self._cycles), self._stored.associations)

    def close(self) -> None:
        if self._memory is not None:
            self._memory.drop()
