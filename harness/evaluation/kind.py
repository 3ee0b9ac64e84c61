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
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, get_args, get_type_hints, runtime_checkable

from harness.backends.base import Backend
from harness.embeddings.embedder import Embedder
from harness.evaluation.crew import Crew
from harness.models.rulesets import HARNESS
from harness.pipeline.memory_layer import TextEmbedder
from harness.pipeline.settings import Mode
from harness.reports.document import Report, RowText, RunInfo
from harness.shards import Shard
from harness.systems.bound import REFERENCE_BOUND, BoundSystem


class Result(Protocol):
    """One judged row: a case, question, scenario or turn, in one mode (read-only here: a kind's
    results may be frozen, and narrow `mode` to `Mode` or `str`)."""

    @property
    def item_id(self) -> str: ...

    @property
    def mode(self) -> str | None: ...

    @property
    def error(self) -> str | None: ...

    @property
    def backend_lost(self) -> bool: ...

    def to_json(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=Result)
"""A kind's own result type: the one its `execute` yields and its `report` reads back."""
R_co = TypeVar("R_co", bound=Result, covariant=True)
"""The same, where results are only read (a `Step`): a kind's steps are steps of `Result`s."""
Opts = TypeVar("Opts")
"""A kind's own options (its spec's dataclass; None for a kind without options)."""


@dataclass(frozen=True, slots=True)
class Engine:
    """What a kind runs on: one backend, the embedder (None when no mode needs vectors) and the
    modes this backend can run."""

    backend: Backend
    embedder: TextEmbedder | None
    modes: tuple[Mode, ...]
    system: BoundSystem = REFERENCE_BOUND
    """The system under test: the reference system unless another is bound."""
    crew: Crew = field(default_factory=Crew)
    """Where the kind runs its independent tasks (`--concurrency`: how many at once; 1 by default)."""


@dataclass(frozen=True, slots=True)
class Step(Generic[R_co]):
    """One finished progress unit: the item it was and its results (one per mode, or per turn)."""

    item_id: str
    results: Sequence[R_co]
    position: tuple[int, ...] = ()
    """Where the step comes in a serial run (set by the engine's crew; empty: where it is yielded)."""


class CaseKind(Protocol[R]):
    """One kind of case, loaded and configured for one run on one backend (it may keep what its
    report needs from `execute`, so a run on another backend builds it anew). `R`: its result
    type, which `execute` yields and `report` reads (so invariant; `CaseKind[Any]`: any kind)."""

    @property
    def name(self) -> str:
        """The kind's name in reports and baselines (`beliefs`, `haystack`, `lifecycle`, ...): its spec's name."""
        ...

    @property
    def baseline_suite(self) -> str | None:
        """The name baselines key its report's `scores` by (its suites, dataset or scenario set), known
        before it runs so a missing baseline fails first; None: its reports have no scores."""
        ...

    @property
    def unit(self) -> str:
        """What one progress step is, plural, for progress bars and messages (`cases`, `questions`)."""
        ...

    def total(self, modes: Sequence[Mode]) -> int | None:
        """Progress units `execute` will yield in these modes; None when unknown before streaming."""
        ...

    def texts(self) -> Iterable[str]:
        """Every text vector modes embed (embedded ahead, so a model that cannot load fails first)."""
        ...

    def prepare(self) -> None:
        """Work a run needs done before it starts, so a failure (a model that cannot load) comes first."""
        ...

    def inputs(self) -> Sequence[Path]:
        """The files the items were read from (the envelope pins each by its sha256)."""
        ...

    def item_ids(self) -> Sequence[str]:
        """The ids of the items this kind runs, in run order (`Result.item_id`s)."""
        ...

    def execute(self, engine: Engine) -> Iterator[Step[R]]:
        """Run and judge every item on the engine, yielding each as it finishes; an item's error
        is its results' error, and the run goes on. Creates only namespaces it drops again."""
        ...

    def report(self, results: Sequence[R], run: RunInfo) -> Report:
        """The run's report from its results (those of an interrupted run too)."""
        ...


@dataclass(frozen=True)
class KindOptions:
    """What `harness run` says about every kind of case (each kind's own options are its spec's dataclass)."""

    modes: Sequence[Mode]
    limit: int | None = None
    fail_under: float | None = None
    embedding_model: str | None = None
    shard: Shard | None = None
    error_threshold: float = 0.0
    """`--error-threshold` (the runner's verdict applies it; a kind may state it in its report)."""


def option(help: str, *, flag: str | None = None, texts: bool = False, **limits: Any) -> dict[str, Any]:
    """A kind option's field metadata: its `--help` line, its flag (default `--<field name>`) and
    typer's limits (`min`, `max`); the CLI builds the option from the field's type and default.
    `texts`: the option changes which texts vector modes embed, so `harness embed` takes it too."""
    return {"help": help, "flag": flag, "texts": texts, "limits": limits}


def own_rules(_kind: Any, _reference: bool) -> str:
    """A kind with one ruleset: the harness's own."""
    return HARNESS


@dataclass(frozen=True)
class KindSpec(Generic[Opts, R]):
    """One kind of case, declared once: everything the CLI, the runner, merge, compare and
    baselines need to know about it derives from this.

    `prefixes`: the `--suite PREFIX:REST` formats it reads (empty for the kind that takes every
    other `--suite`, and for one chosen by an option of its own, as `--dataset`);
    `options`: a frozen dataclass of the kind's own options, each field with `option()` metadata
    (the CLI's options, its help panel `title` and its "does not apply" refusals derive from it);
    `build(specs, common, own)`: the kind for `--suite` arguments (all of this kind's, in order);
    `result`: a report's result record read back (`Result.to_json`'s inverse);
    `results_key`: where the report body lists the result records;
    `honours`: which common options it acts on besides modes, limit, shard and the embedding model
    (`fail_under`, `trec`); another is refused for it, never ignored;
    `mode_major`: its run goes mode by mode (else item by item, every mode per item);
    `order(kind, modes)`: for a run whose order is neither, the sort key of a result's position in
    an unsharded run of `kind`, the kind `build` made (merge puts the shards' results in that order);
    `selector`: the own option that chooses this kind instead of `--suite` (`dataset`), if any;
    `builtin`: its built-in suite, which pytest makes items of (None: it has none, or no items);
    `restore(kind, bodies)`: for a kind that keeps run state besides its results (a dataset run's
    load notes and timings), that state read back from its shard reports' bodies into the rebuilt
    kind, so `harness merge` reports it as the unsharded run did;
    `embed_ahead`: a run embeds all its texts before it starts (False: too many to hold, as a
    dataset's haystacks: it embeds as it goes, its model loaded before the run);
    `describe(kind, modes, embedder)`: what a run would do, as (label, value) rows, for `--dry-run`
    (None: the kind has no dry run);
    `main`: its main measures, by their names in a score sheet's `overall` (a dataset's carry its
    first granularity as a prefix, `session/mrr`, matched by the name after it): the leaderboard's
    cells (none: a sheet's first measure);
    `row(result)`: how a result reads as a row of the page (None: its item id alone);
    `rule`: what a failed row means, in words for the page (an `Itemized` kind's `failures` decide).
    The runner writes the last three into every report (`view.view`), so the page, the leaderboard
    and compare read them from the report;
    `rules(kind, reference)`: the name of the ruleset (`models/rulesets.py`) a run of `kind` is
    made under, whether the system is the reference (whose definitions judge it and score it):
    the runner and merge write its record into every report's envelope as `rules`.
    """

    name: str
    title: str
    suite_help: str
    build: Callable[[Sequence[str], KindOptions, Opts], CaseKind[R]]
    result: Callable[[Mapping[str, Any]], R]
    results_key: str
    prefixes: tuple[str, ...] = ()
    options: type[Opts] | None = None
    honours: frozenset[str] = frozenset()
    mode_major: bool = False
    order: Callable[[Any, Sequence[str]], Callable[[R], tuple[int, ...]]] | None = None
    selector: str | None = None
    builtin: str | None = None
    restore: Callable[[Any, Sequence[Mapping[str, Any]]], None] | None = None
    embed_ahead: bool = True
    describe: Callable[[Any, Sequence[Mode], Embedder | None], list[tuple[str, str]]] | None = None
    main: tuple[str, ...] = ()
    row: Callable[[R], RowText] | None = None
    rule: str = ""
    rules: Callable[[Any, bool], str] = own_rules


def default_options(kind: KindSpec[Any, Any]) -> Any:
    """The kind's own options with every default (None for a kind without options)."""
    return None if kind.options is None else kind.options()


def options_json(own: Any) -> dict[str, Any]:
    """A kind's own options as its reports record them (enums by value, paths as text)."""
    if own is None:
        return {}
    return {f.name: _plain(getattr(own, f.name)) for f in fields(own)}


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    return value.value if hasattr(value, "value") else value


def options_from_json(kind: KindSpec[Any, Any], data: Mapping[str, Any]) -> Any:
    """`options_json`'s inverse: the dataclass again (each value through its default's type)."""
    default = default_options(kind)
    if default is None:
        return None
    hints = get_type_hints(type(default))
    values = {}
    for f in fields(default):
        if f.name in data:
            current, value = getattr(default, f.name), data[f.name]
            typed = hasattr(current, "value") and value is not None
            path = value is not None and Path in (hints[f.name], *get_args(hints[f.name]))
            values[f.name] = type(current)(value) if typed else Path(value) if path else value
    return type(default)(**values)


def rebuild(kind: KindSpec[Any, R], origin: Mapping[str, Any], modes: Sequence[str]) -> CaseKind[R]:
    """The kind an unsharded run of a report's `origin` would have run (`harness merge`)."""
    common = KindOptions([Mode(m) for m in modes], origin["limit"], origin["fail_under"], origin["embedding_model"])
    return kind.build(tuple(origin["suites"]), common, options_from_json(kind, origin["options"]))


def run_order(kind: KindSpec[Any, R], built: CaseKind[R], modes: Sequence[str]) -> Callable[[R], tuple[int, ...]]:
    """The sort key of a result's position in an unsharded run of `built` (the kind `kind.build`
    made) in `modes`: results gathered from shards or pytest items are reported in that order."""
    if kind.order is not None:
        return kind.order(built, modes)
    items = {item: position for position, item in enumerate(built.item_ids())}

    def position(result: R) -> tuple[int, ...]:
        item, mode = items.get(result.item_id, len(items)), modes.index(result.mode) if result.mode in modes else 0
        return (mode, item) if kind.mode_major else (item, mode)

    return position


@dataclass(frozen=True, slots=True)
class Item:
    """One pytest item of a kind, in each backend and mode the test run selects."""

    id: str
    """The `Step.item_id` its results come back under (a case, scenario, `scenario#turn`, task)."""
    group: str
    """Items of one group come from one execution of `only(group)`: one ingest serves them all,
    and items whose state depends on each other (a conversation's turns) are played in order."""


@runtime_checkable
class Itemized(Protocol[R]):
    """A kind whose items pytest runs one by one (every built-in kind is one)."""

    @property
    def name(self) -> str: ...

    @property
    def baseline_suite(self) -> str | None: ...

    @property
    def asserted(self) -> frozenset[Mode]:
        """The modes whose judged failures fail the test run when `--mode` names none: the system under
        test. In any other mode a judged failure fails only as a regression from a committed baseline."""
        ...

    def items(self) -> Sequence[Item]:
        """Every item, known before anything runs (collection lists them)."""
        ...

    def only(self, group: str) -> CaseKind[R]:
        """This kind restricted to the items of `group`; its `execute` yields their steps."""
        ...

    def failures(self, result: R) -> list[str]:
        """The judge's reasons a result fails (empty: it passed); its error is reported apart."""
        ...
