"""Sharded dataset runs: a deterministic partition by id hash, and merged shards equal to the whole run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.embeddings import Embedder
from harness.errors import HarnessError
from harness.evaluation import merge
from harness.evaluation.kinds import SPECS
from harness.reports.document import Report, sealed
from harness.shards import Shard, parse_shard, shard_of
from tests.conftest import Main

from .builders import run_dataset_report, shared_file
from .conftest import bag_of_words, longmemeval_small

N = 4


def test_parse_shard_accepts_i_of_n_and_rejects_the_rest() -> None:
    assert parse_shard("2/4") == Shard(2, 4)
    assert parse_shard(" 1 / 1 ") == Shard(1, 1)
    for bad in ("0/4", "5/4", "1/0", "2", "a/b", "-1/4", "1/4/2"):
        with pytest.raises(HarnessError, match="--shard"):
            parse_shard(bad)


def test_every_id_is_in_exactly_one_shard_given_by_its_sha256() -> None:
    ids = [f"q{i}" for i in range(200)] + ["conv-26:3", "ü-id", ""]
    for item in ids:
        owners = [i for i in range(1, N + 1) if Shard(i, N).owns(item)]
        expected = 1 + int.from_bytes(hashlib.sha256(item.encode()).digest()[:8], "big") % N
        assert owners == [expected] == [shard_of(item, N)]
    sizes = [sum(Shard(i, N).owns(item) for item in ids) for i in range(1, N + 1)]
    assert min(sizes) > 20, sizes  # a hash spreads 203 ids over 4 shards, none nearly empty


def merge_reports(paths: list[Path]) -> Report:
    """The merged report, its data with the envelope a merge writes around it."""
    merged = merge.merge_reports(paths, SPECS)
    envelope, report = merged.envelope, merged.report
    return Report(report.stem, envelope.document(report.data, {}), report.markdown, report.scorecard, report.scores)


def _run(out: Path, factory: Callable[[], Embedder], shard: Shard | None, **settings: Any) -> dict[str, Any]:
    return run_dataset_report(out, factory, shard, **settings)


def _without_latency(report: dict[str, Any]) -> dict[str, Any]:
    """What must be equal: every metric and count; latency is a measurement of each run."""
    summary = {mode: {k: v for k, v in s.items() if k != "latency_ms"} for mode, s in report["summary"].items()}
    questions = sorted(
        json.dumps({k: v for k, v in q.items() if k != "latency_ms"}, sort_keys=True) for q in report["questions"]
    )
    keep = ("published", "skipped", "defects", "error_fraction", "selection", "modes", "granularity", "dataset")
    return {"summary": summary, "questions": questions, **{k: report[k] for k in keep}}


@pytest.mark.parametrize(
    ("dataset", "file", "granularity", "modes", "sample"),
    [
        ("locomo", "locomo10.json", "turn", ["bm25"], {"limit": 200, "sample": "stratified"}),
        ("longmemeval-s", "longmemeval_s.sample5.json", "session", ["bm25", "hybrid"], {}),
        ("longmemeval-s", "longmemeval_s.sample5.json", "turn", ["bm25", "vector"], {}),
    ],
    ids=[
        "locomo-locomo10.json-turn-modes0",
        "longmemeval-s-longmemeval_s.sample5.json-session-modes1",
        "longmemeval-s-longmemeval_s.sample5.json-turn-modes2",
    ],
)
def test_four_shards_merged_equal_the_unsharded_run(
    tmp_path: Path,
    embedder_factory: Callable[[], Embedder],
    dataset: str,
    file: str,
    granularity: str,
    modes: list[str],
    sample: dict[str, Any],
) -> None:
    """The S sample whole; LoCoMo as a stratified sample of 200 of its 1,986 questions (every
    conversation and category, the sample cut into shards after it is drawn): the whole file cost
    about 25 s of CPU in five runs that showed nothing more."""
    settings = {"dataset": dataset, "file": shared_file(file), "granularity": granularity, "modes": modes, **sample}
    whole = _run(tmp_path / "whole", embedder_factory, None, **settings)
    shards = [_run(tmp_path / "shards", embedder_factory, Shard(i, N), **settings) for i in range(1, N + 1)]
    paths = sorted((tmp_path / "shards").glob("*-shard*of4-2*.json"))

    merged = dict(merge_reports(list(reversed(paths))).data)

    sizes = [s["selection"]["selected"] for s in shards]
    assert sum(sizes) == whole["selection"]["selected"]
    assert max(sizes) < sum(sizes)
    assert merged["shard"] is None
    assert len(merged["timing"]["shard_wall_s"]) == N
    assert _without_latency(merged) == _without_latency(whole)
    counts = {mode: s["latency_ms"]["count"] for mode, s in merged["summary"].items()}
    assert counts == {mode: s["latency_ms"]["count"] for mode, s in whole["summary"].items()}


@pytest.fixture(scope="module")
def shard_reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two shard reports, run once for the tests that only read them."""
    folder = tmp_path_factory.mktemp("shard-reports")
    file = longmemeval_small(folder)
    settings = {"dataset": "longmemeval-s", "file": file, "granularity": "session", "modes": ["bm25"]}
    for i in (1, 2):
        _run(folder / "reports", bag_of_words(folder), Shard(i, 2), **settings)
    return sorted((folder / "reports").glob("*-shard*of2-2*.json"))


def _rewrite(path: Path, target: Path, **changes: Any) -> Path:
    """A shard changed as if a run had written it so (sealed again: the checks past the checksum)."""
    report = json.loads(path.read_text())
    report.update(changes)
    target.write_text(json.dumps(sealed(report)))
    return target


def _strip(path: Path, target: Path, field: str) -> Path:
    report = json.loads(path.read_text())
    del report[field]
    target.write_text(json.dumps(sealed(report)))
    return target


def test_mismatched_shards_are_refused(tmp_path: Path, shard_reports: list[Path]) -> None:
    first, second = shard_reports
    other_model = json.loads(second.read_text())["origin"] | {"embedding_model": "other"}
    cases = {
        "missing shard 2/2": [first],
        "given twice": [first, first],
        "differs .* in modes": [first, _rewrite(second, tmp_path / "modes.json", modes=["bm25", "vector"])],
        "differs .* in shards": [first, _rewrite(second, tmp_path / "n.json", shard={"index": 2, "count": 3})],
        "differs .* in origin": [first, _rewrite(second, tmp_path / "m.json", origin=other_model)],
        "not a shard report": [first, _rewrite(second, tmp_path / "whole.json", shard=None)],
        "differs .* in kind": [first, _rewrite(second, tmp_path / "kind.json", kind="beliefs")],
        "not a harness run report": [first, _strip(second, tmp_path / "other.json", "files")],
    }
    for message, paths in cases.items():
        with pytest.raises(HarnessError, match=message):
            merge_reports(paths)


def test_merge_command_exits_2_with_one_line_on_a_missing_shard(
    harness_main: Main, tmp_path: Path, shard_reports: list[Path]
) -> None:
    done = harness_main("merge", str(shard_reports[0]), "--out", str(tmp_path / "merged"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["harness: error: missing shard 2/2: every shard is needed"]
    assert not (tmp_path / "merged").exists()


def test_merge_command_writes_the_whole_report(harness_main: Main, tmp_path: Path, shard_reports: list[Path]) -> None:
    done = harness_main("merge", *map(str, shard_reports), "--out", str(tmp_path / "merged"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    merged = json.loads((tmp_path / "merged" / "dataset-longmemeval-s-session-latest.json").read_text())
    assert merged["selection"]["selected"] == 3
    assert merged["shard"] is None


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--shard", "5/4"], "harness: error: --shard 5/4: I must be between 1 and N, and N at least 1"),
        (["--shard", "two"], "harness: error: --shard takes I/N (e.g. 2/4), got 'two'"),
        (
            ["--device", "gpu"],
            "harness: error: Invalid value for '--device': Value error, 'gpu' is not one of 'auto', 'cpu', 'cuda'.",
        ),
    ],
)
def test_run_rejects_a_bad_shard_or_device_before_any_work(
    harness_main: Main, tmp_path: Path, arguments: list[str], message: str
) -> None:
    done = harness_main("run", "-m", "bm25", "--out", str(tmp_path / "r"), *arguments, cwd=tmp_path)
    assert (done.returncode, done.stderr.strip().splitlines()) == (2, [message])
    assert not (tmp_path / "r").exists()


def test_suite_shards_merged_equal_the_unsharded_suite_run(harness_main: Main, tmp_path: Path) -> None:
    """`run --shard I/N` over the built-in suite, merged, gives the unsharded run's scorecard."""

    def run(*arguments: str) -> None:
        done = harness_main("run", "-m", "bm25", *arguments, cwd=tmp_path)
        assert done.returncode == 0, done.stderr

    run("--out", str(tmp_path / "whole"))
    for index in range(1, 4):
        run("--shard", f"{index}/3", "--out", str(tmp_path / "shards"))
    shards = sorted((tmp_path / "shards").glob("run-embedded-shard*of3-2*.json"))
    assert len(shards) == 3
    merged = merge_reports(shards)
    whole = json.loads((tmp_path / "whole" / "run-embedded-latest.json").read_text())

    def numbers(summary: dict[str, Any]) -> dict[str, Any]:
        timing = {"p50_ms", "p95_ms", "first_error"}
        return {k: v for k, v in summary.items() if k not in timing}

    assert [numbers(s) for s in merged.data["summary"]] == [numbers(s) for s in whole["summary"]]
    assert sorted(c["case_id"] for c in merged.data["cases"]) == sorted(c["case_id"] for c in whole["cases"])
    assert merged.data["shard"] is None
    assert merged.stem == "run-embedded"
    assert merged.scorecard.rows[0][2] == "115/115"
    (sheet,) = merged.scores.values()
    assert sheet.overall["pass_rate"] == 1.0
    assert len(sheet.cases) == len(whole["cases"])
