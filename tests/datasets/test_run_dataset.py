"""Dataset runs through the one runner: selection checks, reports, abstention and defect counts, error
threshold, dry run."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from harness.backends.base import Filters, Hit, IndexSpec
from harness.backends.embedded import EmbeddedBackend, EmbeddedIndex
from harness.embeddings import Embedder
from harness.errors import HarnessError, Interrupted
from harness.evaluation.embedders import EmbedCount, embed_streamed, selection_texts
from harness.evaluation.kinds.haystack.spec import describe
from harness.evaluation.runner import Finished
from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode
from harness.suites import datasets
from harness.suites.datasets import DATASETS, open_selection

from .builders import BagOfWordsEncoder, run_dataset, shared_file


def _run(tmp_path: Path, factory: Callable[[], Embedder], **overrides: Any) -> tuple[int, Finished]:
    return run_dataset(out_dir=tmp_path / "reports", embedder_factory=factory, **overrides)


def _report(tmp_path: Path, dataset: str, granularity: str) -> dict[str, Any]:
    return json.loads((tmp_path / "reports" / f"dataset-{dataset}-{granularity}-latest.json").read_text())


def test_dataset_names() -> None:
    assert DATASETS == {"longmemeval-s", "longmemeval-m", "longmemeval-oracle", "locomo", "builtin"}


def test_longmemeval_run_reports_every_question_and_leaves_out_abstention(
    tmp_path: Path, longmemeval_file: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    code, finished = _run(tmp_path, embedder_factory, file=longmemeval_file, modes=["bm25", "hybrid"])
    report = _report(tmp_path, "longmemeval-s", "session")

    assert code == 0
    assert [p.suffix for p in finished.paths] == [".json", ".md", ".html"]
    assert finished.report.scorecard.title == "longmemeval-s, session granularity, 2 haystacks"
    assert report["selection"] == {"limit": None, "sample": "head", "seed": 0, "selected": 3, "total": 3}
    assert report["skipped"] == {"abstention question: no evidence exists, left out of retrieval metrics": 1}
    bm25 = report["summary"]["bm25"]
    assert bm25["levels"]["session"]["questions"] == 2
    assert bm25["levels"]["session"]["metrics"]["recall_any@1"] == 1.0
    assert set(bm25["levels"]["session"]["by_category"]) == {"single-session-user", "multi-session"}
    asked = [q for q in report["questions"] if q["status"] == "ok"]
    assert {(q["id"], q["mode"]) for q in asked} == {("q1", "bm25"), ("q1", "hybrid"), ("q3", "bm25"), ("q3", "hybrid")}
    first = next(q for q in asked if q["id"] == "q1")
    assert first["levels"]["session"]["gold"] == ["answer_1"]
    assert first["levels"]["session"]["retrieved"][0][0] == "answer_1"
    assert first["latency_ms"] > 0
    assert first["type"] == "single-session-user"
    assert first["error"] is None
    assert {"recall_any@5", "recall_all@10", "ndcg@10", "mrr"} <= set(first["levels"]["session"]["metrics"])
    assert report["notes"] == ["q3: duplicate session filler_1 dropped"]
    assert report["machine"]["cpus"]
    assert report["definitions"]["recall_all@5"].startswith("1 if every gold item is in the top 5")
    assert any(row["metric"] == "recall_any@5" for row in report["published"])
    markdown = (tmp_path / "reports" / "dataset-longmemeval-s-session-latest.md").read_text()
    assert "## Compared with published numbers" in markdown
    assert "recall_any@5 (1 if any gold item" in markdown


def test_turn_runs_score_turns_and_sessions(
    tmp_path: Path, longmemeval_file: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    _run(tmp_path, embedder_factory, file=longmemeval_file, granularity="turn", modes=["vector"])
    levels = _report(tmp_path, "longmemeval-s", "turn")["summary"]["vector"]["levels"]
    assert set(levels) == {"turn", "session"}
    assert levels["turn"]["questions"] == 2


def test_locomo_run_counts_defects_and_unscorable_questions(
    tmp_path: Path, locomo_file: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    _run(tmp_path, embedder_factory, dataset="locomo", file=locomo_file, granularity="turn", modes=["hybrid"])
    report = _report(tmp_path, "locomo", "turn")

    assert report["skipped"] == {"no usable turn evidence": 2}
    assert report["defects"] == {"split into": 1, "read as": 1, "malformed": 2, "names no turn": 1, "empty evidence": 1}
    categories = report["summary"]["hybrid"]["levels"]["turn"]["by_category"]
    assert set(categories) == {"temporal", "single-hop", "multi-hop"}


class FailingBackend(EmbeddedBackend):
    """Lexical search fails for every question whose terms include `commute`."""

    def create_index(self, namespace: str, spec: IndexSpec) -> EmbeddedIndex:
        index = super().create_index(namespace, spec)
        original = index.lexical

        def lexical(terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
            if "commute" in terms:
                raise RuntimeError("engine fell over")
            return original(terms, filters, limit)

        index.lexical = lexical  # type: ignore[method-assign]
        return index


def test_errors_are_recorded_per_question_and_judged_by_the_threshold(
    tmp_path: Path, longmemeval_file: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    failing = {"file": longmemeval_file, "backend": FailingBackend()}
    assert _run(tmp_path, embedder_factory, **failing, error_threshold=0.4)[0] == 1
    assert _run(tmp_path, embedder_factory, **failing, error_threshold=0.5)[0] == 0
    report = _report(tmp_path, "longmemeval-s", "session")
    failed = [q for q in report["questions"] if q["status"] == "error"]
    assert [(q["id"], q["error"]) for q in failed] == [("q3", "RuntimeError: engine fell over")]
    assert report["summary"]["bm25"]["errors"] == 1
    assert report["error_fraction"] == 0.5


def test_a_whole_file_run_stopped_early_still_reports_the_files_total(
    tmp_path: Path, longmemeval_file: Path, embedder_factory: Callable[[], Embedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_: object) -> None:
        raise Interrupted("SIGINT", 130)

    monkeypatch.setattr(EmbeddedIndex, "lexical", interrupted)
    with pytest.raises(Interrupted):
        _run(tmp_path, embedder_factory, file=longmemeval_file)
    (path,) = (tmp_path / "reports").glob("dataset-longmemeval-s-session-incomplete-*.json")
    selection = json.loads(path.read_text())["selection"]
    assert selection["total"] == 3  # counted before any work, not from the questions asked
    assert selection["selected"] < 3


def test_sampling_options_limit_the_questions(
    tmp_path: Path, longmemeval_file: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    _run(tmp_path, embedder_factory, file=longmemeval_file, limit=1, sample="stride")
    assert _report(tmp_path, "longmemeval-s", "session")["selection"]["selected"] == 1


def test_dry_run_reads_everything_and_writes_nothing(
    tmp_path: Path, locomo_file: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    selection = open_selection("locomo", locomo_file)
    rows = dict(describe(selection, Granularity.TURN, [Mode.HYBRID], embedder_factory()))
    assert rows["questions"] == "6 of 6"
    assert rows["embeddings"].endswith("texts not cached for bag-of-words")
    assert not (tmp_path / "reports").exists()


def test_a_missing_file_says_where_to_put_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder_factory: Callable[[], Embedder]
) -> None:
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setattr(datasets, "shared_datasets_dir", lambda: tmp_path / "shared")
    with pytest.raises(HarnessError) as raised:
        _run(tmp_path, embedder_factory, dataset="longmemeval-m")
    message = str(raised.value)
    assert "longmemeval_m_cleaned.json" in message
    assert "--file PATH" in message
    assert "HARNESS_DATA_DIR" in message
    assert "\n" not in message
    with pytest.raises(HarnessError, match="does not exist"):
        _run(tmp_path, embedder_factory, file=tmp_path / "absent.json")


def test_the_data_folder_variable_is_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locomo_file: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path))
    locomo_file.rename(tmp_path / "locomo10.json")
    assert _run(tmp_path, embedder_factory, dataset="locomo")[0] == 0


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"dataset": "squad"}, "unknown dataset 'squad'"),
        ({"limit": 0}, "--limit must be at least 1"),
    ],
)
def test_bad_arguments_are_user_errors(
    tmp_path: Path,
    longmemeval_file: Path,
    embedder_factory: Callable[[], Embedder],
    override: dict[str, Any],
    message: str,
) -> None:
    with pytest.raises(HarnessError, match=message):
        _run(tmp_path, embedder_factory, file=longmemeval_file, **override)


def test_vector_modes_without_cached_vectors_or_model_are_a_clear_error(tmp_path: Path, longmemeval_file: Path) -> None:
    offline = partial(Embedder, "bag-of-words", cache_dir=tmp_path / "empty", compute=False)
    with pytest.raises(
        HarnessError, match=r"texts have no cached embedding for model bag-of-words: run `harness embed`"
    ):
        _run(tmp_path, offline, file=longmemeval_file, modes=["vector"])


def test_bm25_on_a_stratified_sample_of_the_shared_locomo_file(
    tmp_path: Path, embedder_factory: Callable[[], Embedder]
) -> None:
    path = shared_file("locomo10.json")
    _run(
        tmp_path,
        embedder_factory,
        dataset="locomo",
        file=path,
        granularity="turn",
        limit=200,
        sample="stratified",
        seed=1,
    )
    report = _report(tmp_path, "locomo", "turn")
    turn = report["summary"]["bm25"]["levels"]["turn"]
    assert report["selection"]["selected"] == 200
    assert turn["metrics"]["recall_any@10"] > 0.6
    assert set(turn["by_category"]) == {"multi-hop", "temporal", "open-domain", "single-hop", "adversarial"}


def test_bm25_on_the_shared_s_sample(tmp_path: Path, embedder_factory: Callable[[], Embedder]) -> None:
    _run(tmp_path, embedder_factory, file=shared_file("longmemeval_s.sample5.json"))
    metrics = _report(tmp_path, "longmemeval-s", "session")["summary"]["bm25"]["levels"]["session"]["metrics"]
    assert metrics["recall_any@5"] == 1.0


def test_embedding_a_selection_caches_what_a_vector_run_needs(tmp_path: Path, locomo_file: Path) -> None:
    def embedder(compute: bool) -> Embedder:
        return Embedder(
            "bag-of-words", cache_dir=tmp_path / "cache", compute=compute, loader=lambda _n, _d: BagOfWordsEncoder()
        )

    plans: list[tuple[int, int]] = []
    selection = open_selection("locomo", locomo_file)
    first = embed_streamed(
        lambda: selection_texts(selection), embedder(True), batch=4, on_plan=lambda *p: plans.append(p)
    )
    assert first == EmbedCount(texts=5 + 6, computed=5 + 6)
    assert plans == [(11, 11)]
    again = embed_streamed(lambda: selection_texts(selection), embedder(True), on_plan=lambda *p: plans.append(p))
    assert again == EmbedCount(texts=11, computed=0)
    assert plans[-1] == (11, 0)
    code, _ = _run(
        tmp_path, lambda: embedder(False), dataset="locomo", file=locomo_file, modes=["hybrid"], granularity="turn"
    )
    assert code == 0
