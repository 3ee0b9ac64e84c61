"""What a kind of case is to the one runner: how its items execute on an engine, and how they are judged.

A case kind (belief snapshots and sessions, questions over a haystack, lifecycle scenarios,
conversation turns, code tasks) is one module in `harness/evaluation/kinds/`. It is built from a
loaded suite and the run's settings; the runner asks it for its progress total and the texts its
vector modes embed, then iterates `execute`, which yields each finished item with its judged
results, so an interrupted run keeps (and reports) what finished. `report` turns the results into
the files `reports/` writes, the scorecard the CLI draws, the score sheets baselines compare and
the quality gates that fail the run. A kind that is also `Itemized` becomes pytest items, one per
case, scenario, turn or task. Nothing here draws or prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from harness.backends.base import Backend, BackendInfo
from harness.metrics.evaluate import QrelsByQuery, RunByQuery
from harness.models.scoresheet import ScoreSheet
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode


class Result(Protocol):
    """One judged row: a case, question, scenario or turn, in one mode."""

    @property
    def item_id(self) -> str: ...

    mode: str | None
    error: str | None
    backend_lost: bool

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class Engine:
    """What a kind runs on: one backend, the embedder (None when no mode needs vectors) and the
    modes this backend can run."""

    backend: Backend
    embedder: TextEmbedder | None
    modes: tuple[Mode, ...]


@dataclass(frozen=True, slots=True)
class Step:
    """One finished progress unit: the item it was and its results (one per mode, or per turn)."""

    item_id: str
    results: Sequence[Result]


@dataclass(frozen=True, slots=True)
class RunInfo:
    """What a report says about the run besides its results."""

    backend: BackendInfo
    modes: tuple[Mode, ...]
    unsupported: Mapping[Mode, str]
    """Modes asked for that this backend cannot run, with the reason (reported, never faked)."""
    settings: Mapping[str, Any]
    """The settings that produced the numbers, as the report records them."""
    started_at: datetime
    wall_s: float
    incomplete: str | None = None
    """Why the run stopped before its last item (its results are what finished)."""


@dataclass(frozen=True, slots=True)
class Scorecard:
    """A table for the terminal, in plain strings: the CLI draws it and adds nothing."""

    title: str
    columns: tuple[str, ...]
    rows: Sequence[Sequence[str]]
    caption: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class Report:
    """What one run of one kind on one backend leaves behind."""

    stem: str
    """File name stem (`run-embedded`, `run-dataset-locomo-turn`, ...); the writer adds the time."""
    data: Mapping[str, Any]
    markdown: str
    scorecard: Scorecard
    scores: Mapping[str, ScoreSheet] = field(default_factory=dict)
    """Per mode, what a baseline freezes and a regression check compares."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The settings that produced `scores`, as a baseline records them."""
    gates: Sequence[str] = ()
    """One line per quality gate the run failed (`--fail-under`, a FAIL grade): exit 1."""
    charts: Mapping[str, Callable[[Path], Path]] = field(default_factory=dict)
    """Per chart name, what draws it into a PNG path (`<report file stem>-<name>.png`); needs the chart extra."""
    trec: Mapping[str, tuple[RunByQuery, QrelsByQuery]] = field(default_factory=dict)
    """Per run key (a mode, or mode and level), the ranked runs and judgements for `--trec` files."""


class CaseKind(Protocol):
    """One kind of case, loaded and configured for one run on one backend (it may keep what its
    report needs from `execute`, so a run on another backend builds it anew)."""

    name: str
    """The kind's name in reports and baselines (`beliefs`, `haystack`, `lifecycle`, ...)."""
    baseline_suite: str | None
    """The name baselines key its report's `scores` by (its suites, dataset or scenario set), known
    before it runs so a missing baseline fails first; None: its reports have no scores."""
    unit: str
    """What one progress step is, plural, for progress bars and messages (`cases`, `questions`)."""

    def total(self, modes: Sequence[Mode]) -> int | None:
        """Progress units `execute` will yield in these modes; None when unknown before streaming."""
        ...

    def texts(self) -> Iterable[str]:
        """Every text vector modes embed (embedded ahead, so a model that cannot load fails first)."""
        ...

    def execute(self, engine: Engine) -> Iterator[Step]:
        """Run and judge every item on the engine, yielding each as it finishes; an item's error
        is its results' error, and the run goes on. Creates only namespaces it drops again."""
        ...

    def report(self, results: Sequence[Result], run: RunInfo) -> Report:
        """The run's report from its results (those of an interrupted run too)."""
        ...


@dataclass(frozen=True, slots=True)
class Item:
    """One pytest item of a kind, in each backend and mode the test run selects."""

    id: str
    """The `Step.item_id` its results come back under (a case, scenario, `scenario#turn`, task)."""
    group: str
    """Items of one group come from one execution of `only(group)`: one ingest serves them all,
    and items whose state depends on each other (a conversation's turns) are played in order."""


@runtime_checkable
class Itemized(Protocol):
    """A kind whose items pytest runs one by one (haystack questions are benchmarks: not items)."""

    name: str
    baseline_suite: str | None
    asserted: frozenset[Mode]
    """The modes whose judged failures fail the test run when `--mode` names none: the system under
    test. In any other mode a judged failure fails only as a regression from a committed baseline."""

    def items(self) -> Sequence[Item]:
        """Every item, known before anything runs (collection lists them)."""
        ...

    def only(self, group: str) -> CaseKind:
        """This kind restricted to the items of `group`; its `execute` yields their steps."""
        ...

    def failures(self, result: Any) -> list[str]:
        """The judge's reasons a result fails (empty: it passed); its error is reported apart."""
        ...
