"""The haystack kind declared: its options, how `--dataset`/`--suite haystack:NAME` builds it,
its dry run, its results' order and how a report's questions read back."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.embeddings import Embedder
from harness.evaluation.embedders import haystack_texts
from harness.evaluation.kind import KindOptions, KindSpec, option
from harness.evaluation.kinds.haystack.dataset_rules import HaystackRulesName, dataset_rules
from harness.evaluation.kinds.haystack.results import QuestionResult
from harness.evaluation.kinds.haystack.runner import HaystackKind, skip_reason
from harness.metrics.popoto import PopotoRules
from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode
from harness.reports.document import RowText
from harness.suites.datasets import Selection, open_selection
from harness.suites.sampling import SampleMethod


def describe(
    selection: Selection,
    granularity: Granularity,
    modes: Sequence[Mode],
    embedder: Embedder | None,
    rules: PopotoRules | None = None,
) -> list[tuple[str, str]]:
    """What a run of the selection would do, read and checked without indexing anything (`--dry-run`)."""
    haystacks = documents = defects = notes = 0
    categories: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    texts: set[str] = set()
    for haystack in selection.reader.read(selection.selected):
        haystacks += 1
        documents += len(haystack.documents)
        notes += len(haystack.notes)
        for question in haystack.questions:
            categories[question.category] += 1
            defects += len(question.defects)
            if (reason := skip_reason(question, granularity, rules)) is not None:
                skipped[reason] += 1
        if embedder is not None:
            texts.update(haystack_texts(haystack))
    total = selection.total if selection.total is not None else "?"
    rows = [("questions", f"{sum(categories.values())} of {total}")]
    rows += [(f"  {category}", str(count)) for category, count in sorted(categories.items())]
    rows += [("haystacks", str(haystacks)), ("turns", str(documents))]
    rows += [("skipped", f"{count}: {reason}") for reason, count in skipped.items()]
    rows += [("evidence defects", str(defects)), ("load notes", str(notes)), ("modes", ", ".join(modes))]
    if embedder is not None:
        missing = sum(v is None for v in embedder.cache.lookup(sorted(texts)))
        rows.append(("embeddings", f"{missing} of {len(texts)} texts not cached for {embedder.model}"))
    return rows


@dataclass(frozen=True)
class HaystackOptions:
    dataset: str | None = field(
        default=None,
        metadata=option(
            "A public dataset instead of suites: longmemeval-s, longmemeval-m, longmemeval-oracle, locomo "
            "(or builtin: a small one in cases/haystack)."
        ),
    )
    file: Path | None = field(
        default=None,
        metadata=option("The dataset file (default: looked up in HARNESS_DATA_DIR, ../shared/datasets)."),
    )
    granularity: Granularity = field(default=Granularity.SESSION, metadata=option("Dataset documents."))
    sample: SampleMethod = field(
        default=SampleMethod.HEAD, metadata=option("With --limit: head, stride or stratified (by question type).")
    )
    seed: int = field(default=0, metadata=option("Seed for --sample stratified."))
    haystack_rules: HaystackRulesName = field(
        default=HaystackRulesName.HARNESS,
        metadata=option(
            "Whose definitions score the run: harness, or Popoto's (popoto; popoto@pre-514, popoto@pre-438 for its "
            "older tables): one record per turn (bare text), 20 records per question, abstention questions asked, "
            "its recall@k beside ours; runs at turn granularity (docs/peer-rules.md)."
        ),
    )


PREFIX = "haystack"


def build(suites: Sequence[str], common: KindOptions, own: HaystackOptions) -> HaystackKind:
    """The questions of `--dataset NAME` or `--suite haystack:NAME` (the one suite argument), selected and sharded."""
    (suite,) = suites
    dataset = suite.removeprefix(f"{PREFIX}:")
    selection = open_selection(
        dataset, own.file, limit=common.limit, sample=own.sample, seed=own.seed, shard=common.shard
    )
    needs_vectors = any(m.needs_vectors for m in common.modes)
    rules = dataset_rules(own.haystack_rules, selection.dataset)
    return HaystackKind(
        selection,
        own.granularity if rules is None else Granularity.TURN,
        embedding_model=common.embedding_model if needs_vectors else None,
        error_threshold=common.error_threshold,
        rules=rules,
    )


def run_order(kind: HaystackKind, modes: Sequence[str]) -> Callable[[QuestionResult], tuple[int, ...]]:
    """As a run reports them: asked questions in file order, each in every mode, then the skipped ones."""
    items = {item: position for position, item in enumerate(kind.item_ids())}

    def key(result: QuestionResult) -> tuple[int, ...]:
        mode = modes.index(result.mode) if result.mode in modes else 0
        return (result.mode is None, items.get(result.id, len(items)), mode)

    return key


def dry_run(kind: HaystackKind, modes: Sequence[Mode], embedder: Embedder | None) -> list[tuple[str, str]]:
    """`--dry-run`: the selection read and checked, as `describe` says it."""
    described = describe(kind.selection, kind.granularity, modes, embedder, kind.rules)
    return [("file", str(kind.selection.path)), *described]


def result_from_json(data: Mapping[str, Any]) -> QuestionResult:
    return QuestionResult.from_json(data)


SPEC = KindSpec(
    name="haystack",
    title="Public datasets",
    suite_help="haystack:builtin, haystack:DATASET (as --dataset DATASET)",
    build=build,
    result=result_from_json,
    order=run_order,
    restore=HaystackKind.restore,
    describe=dry_run,
    embed_ahead=False,
    results_key="questions",
    prefixes=(PREFIX,),
    builtin=f"{PREFIX}:builtin",
    options=HaystackOptions,
    honours=frozenset({"trec", "dry_run"}),
    selector="dataset",
    main=("recall_any@5", "mrr"),
    row=lambda r: RowText(r.id, r.category, r.text),
    rule="a gold item is not among the top N at the run's granularity (N: how many gold items it has)",
    rules=lambda kind, _reference: HaystackRulesName.HARNESS.value if kind.rules is None else kind.rules.name,
)
