"""Test items from any kind of case: what collection lists, how an item runs, and when it fails.

Every `--harness-suite` names a kind (`harness.evaluation.kinds.kinds_for`); an `Itemized` kind lists its
items, and each becomes one item per selected backend and mode, named
`<kind>-<backend>-<mode>-<item id>` and marked with its backend and its kind. Nothing here knows
a kind: a new one gets items by implementing `Itemized`.

An item runs its group (`kind.only(group)`) once per process, backend and mode, and reads its own
results from that run, so one ingest serves every item of the group on that worker. It fails when
a result errored, or when the judge failed it in an asserted mode (those `--harness-mode` names, else the
kind's `asserted`). In any other mode a judged failure fails only where the committed baseline of
that suite, backend and mode recorded the item passing (a regression); else it is an xfail with the
judge's reasons.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from harness.backends.base import Backend
from harness.baselines import BaselineKey, BaselineStore
from harness.baselines.store import Baseline
from harness.embeddings import DEFAULT_MODEL
from harness.errors import HarnessError
from harness.evaluation.crew import Crew
from harness.evaluation.embedders import suite_embedder
from harness.evaluation.kind import Engine, Item, Itemized, R, Result
from harness.evaluation.kinds import KindOptions, kinds_for
from harness.evaluation.runner import concurrency
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.systems.bound import REFERENCE_BOUND, BoundSystem
from harness.systems.protocol import REFERENCE, file_key


@dataclass(frozen=True)
class ItemParam:
    spec: str
    """The suite as the user gave it (`--harness-suite`), so any process can build its kind again."""
    kind: str
    backend: str
    mode: Mode
    item: Item
    system: str = REFERENCE
    """The system under test (`--harness-system`); named in the id when it is not the reference system."""

    @property
    def id(self) -> str:
        system = "" if self.system == REFERENCE else f"{file_key(self.system)}-"
        return f"{self.kind}-{self.backend}-{system}{self.mode.value}-{self.item.id}"


class Kinds:
    """Per process: each suite's kind, built once for the run's modes."""

    def __init__(self, modes: Sequence[Mode]) -> None:
        self.modes = list(modes)
        self._kinds: dict[str, Itemized[Any]] = {}

    def __getitem__(self, spec: str) -> Itemized[Any]:
        if spec not in self._kinds:
            model = DEFAULT_MODEL if any(m.needs_vectors for m in self.modes) else None
            try:
                (planned,) = kinds_for([spec], KindOptions(self.modes, embedding_model=model))
            except HarnessError as exc:
                raise pytest.UsageError(f"harness: --harness-suite {spec}: {exc}") from None
            kind = planned.kind
            if not isinstance(kind, Itemized):
                raise pytest.UsageError(f"harness: --harness-suite {spec}: its kind ({kind.name}) makes no test items")
            self._kinds[spec] = kind
        return self._kinds[spec]

    def params(
        self, specs: Sequence[str], backends: Sequence[str], systems: Sequence[str] = (REFERENCE,)
    ) -> Iterator[ItemParam]:
        for spec in specs:
            kind = self[spec]
            for system in systems:
                for backend in backends:
                    for mode in self.modes:
                        for item in kind.items():
                            yield ItemParam(spec, kind.name, backend, mode, item, system)


class GroupRuns:
    """Per process: each (suite, backend, mode, group) run once, its results kept by item id."""

    def __init__(self, concurrency: int = 1) -> None:
        """`concurrency`: `--harness-concurrency`, the most of a group's tasks in flight at once
        (pytest runs one group per item it reaches; its tasks, a suite's static cases, go together)."""
        self._runs: dict[tuple[str, str, str, Mode, str], dict[str, list[Result]]] = {}
        self._embedder: TextEmbedder | None = None
        self._concurrency = concurrency

    def results(
        self, param: ItemParam, kind: Itemized[Any], backend: Backend, system: BoundSystem = REFERENCE_BOUND
    ) -> list[Result]:
        key = (param.spec, param.system, param.backend, param.mode, param.item.group)
        if key not in self._runs:
            vectors = self._vectors() if param.mode.needs_vectors else None
            engine = Engine(backend, vectors, (param.mode,), system, Crew(concurrency(self._concurrency, system)[0]))
            by_item: dict[str, list[Result]] = {}
            for step in kind.only(param.item.group).execute(engine):
                by_item.setdefault(step.item_id, []).extend(step.results)
            self._runs[key] = by_item
        return self._runs[key].get(param.item.id, [])

    def vectors(self, modes: Sequence[Mode]) -> TextEmbedder | None:
        """The encoder a system under test is given (None when no mode needs vectors)."""
        return self._vectors() if any(m.needs_vectors for m in modes) else None

    def _vectors(self) -> TextEmbedder:
        if self._embedder is None:
            self._embedder = suite_embedder(DEFAULT_MODEL)
        return self._embedder


class Baselines:
    """Per process: the committed baseline of each suite, backend and mode, read once (None: none)."""

    def __init__(self, store: BaselineStore) -> None:
        self.store = store
        self._found: dict[BaselineKey, Baseline | None] = {}

    def find(self, key: BaselineKey) -> Baseline | None:
        if key not in self._found:
            self._found[key] = self.store.find(key)
        return self._found[key]


def judge(kind: Itemized[R], param: ItemParam, results: Sequence[R], asserted: bool, baselines: Baselines) -> None:
    """Pass, or fail or xfail the running item with the judge's reasons (see the module docstring)."""
    if not results:
        pytest.fail(f"{param.item.id}: its group ran and gave no result for it", pytrace=False)
    errors = [f"{r.item_id}: error: {r.error}" for r in results if r.error is not None]
    if errors:
        pytest.fail("\n".join(errors), pytrace=False)
    failing = {r.item_id: lines for r in results if (lines := kind.failures(r))}
    if not failing:
        return
    reasons = "\n".join(line for lines in failing.values() for line in lines)
    if asserted:
        pytest.fail(reasons, pytrace=False)
    baseline = None
    if kind.baseline_suite is not None:
        baseline = baselines.find(BaselineKey(kind.baseline_suite, param.backend, param.mode.value, param.system))
    if baseline is None:
        pytest.xfail(f"{param.mode.value} not asserted for {kind.name}, no baseline: {'; '.join(reasons.splitlines())}")
    recorded = {item_id: baseline.scores.cases.get(item_id) for item_id in failing}
    regressed = sorted(item_id for item_id, case in recorded.items() if case is None or case.passed is not False)
    where = baselines.store.path(baseline.key)
    if regressed:
        pytest.fail(f"{', '.join(regressed)}: not recorded failing in the baseline {where}:\n{reasons}", pytrace=False)
    pytest.xfail(f"failing in the baseline {where} too: {'; '.join(reasons.splitlines())}")
