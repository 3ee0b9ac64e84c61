"""A kind declared here, from its spec alone, gets the CLI's options and refusals, shards, merge,
compare, baselines, page rows and a leaderboard column, and (being `Itemized`, with a `builtin`
suite) pytest items and the pytest baseline gate, with no other file changed."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest

from harness.evaluation import kinds
from harness.evaluation.kind import Engine, Item, KindOptions, KindSpec, Step, option
from harness.evaluation.results import Errs
from harness.models.scoresheet import CaseScore, ScoreSheet
from harness.pipeline.settings import Mode
from harness.reports.document import TIMING, Report, RowText, RunInfo, Scorecard
from harness.reports.html.rows import FAIL, PASS, rows

ITEMS = tuple(f"item-{i}" for i in range(8))
PASS_AT = 0.1
"""A toy item passes at this score: without a bonus, item-0 (score 0) is the one that fails."""


@dataclass
class ToyResult(Errs):
    item: str
    mode: str
    score: float
    error: str | None = None
    backend_lost: bool = False

    @property
    def item_id(self) -> str:
        return self.item

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ToyOptions:
    bonus: float = field(default=0.0, metadata=option("Added to every toy score.", flag="--toy-bonus", min=0.0))
    words: str = field(default="", metadata=option("Words every toy text starts with.", flag="--toy-words", texts=True))


class ToyKind:
    name = "toy"
    unit = "items"
    baseline_suite = "toy:eight"
    asserted = frozenset({Mode.BM25})

    def __init__(self, items: Sequence[str], bonus: float, words: str = "") -> None:
        self.ids = list(items)
        self.bonus = bonus
        self.words = words

    def total(self, modes: Sequence[Mode]) -> int:  # noqa: ARG002 - one step per item
        return len(self.ids)

    def texts(self) -> Iterable[str]:
        return [f"{self.words} {item}" for item in self.ids] if self.words else []

    def prepare(self) -> None:
        pass

    def inputs(self) -> list[Path]:
        return []

    def item_ids(self) -> list[str]:
        return list(self.ids)

    def execute(self, engine: Engine) -> Iterator[Step]:
        for item in self.ids:
            score = min(1.0, ITEMS.index(item) / 10 + self.bonus)
            yield Step(item, [ToyResult(item, mode.value, score) for mode in engine.modes])

    def items(self) -> list[Item]:  # `Itemized`: pytest makes an item of each, its own group
        return [Item(item, item) for item in self.ids]

    def only(self, group: str) -> ToyKind:
        return ToyKind([group], self.bonus)

    def failures(self, result: ToyResult) -> list[str]:
        return [f"{result.item} scored {result.score:.2f}, under {PASS_AT}"] if result.score < PASS_AT else []

    def report(self, results: Sequence[Any], run: RunInfo) -> Report:
        by_mode = {m.value: [r for r in results if r.mode == m.value] for m in run.modes}
        scores = {
            mode: ScoreSheet(
                overall={"score": fmean(r.score for r in rows), "passed": fmean(r.score >= PASS_AT for r in rows)},
                cases={r.item: CaseScore(score=r.score) for r in rows},
            )
            for mode, rows in by_mode.items()
            if rows
        }
        rows = [[mode, f"{sheet.overall['score']:.3f}"] for mode, sheet in scores.items()]
        return Report(
            stem=f"toy-{run.backend.backend}",
            data={"results": [r.to_json() for r in results]},
            markdown="# Toy run\n\nNothing but scores.\n",
            scorecard=Scorecard("toy", ("mode", "score"), rows),
            scores=scores,
            settings={"bonus": self.bonus},
        )


def build(suites: Sequence[str], common: KindOptions, own: ToyOptions) -> ToyKind:  # noqa: ARG001 - one toy set
    items = ITEMS[: common.limit]
    return ToyKind([i for i in items if common.shard is None or common.shard.owns(i)], own.bonus, own.words)


TOY = KindSpec(
    name="toy",
    title="Toy items",
    suite_help="toy:eight",
    build=build,
    result=ToyResult.from_json,
    results_key="results",
    prefixes=("toy",),
    options=ToyOptions,
    builtin="toy:eight",
    main=("passed",),  # not its sheet's first measure: the leaderboard shows this one because the spec says so
    row=lambda r: RowText(r.item, f"tenth {ITEMS.index(r.item)}", f"the toy titled {r.item}"),
    rule="the item scored under the toy's pass mark",
)


@pytest.fixture
def harness(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    monkeypatch.setattr(kinds, "SPECS", (*kinds.SPECS, TOY))
    monkeypatch.chdir(tmp_path)

    def call(*args: str) -> int:
        from harness.cli import main

        monkeypatch.setattr(sys, "argv", ["harness", *args])
        with pytest.raises(SystemExit) as info:
            main()
        return int(info.value.code or 0)

    return call


def _without_timing(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in (*TIMING, "checksum")}


def test_a_toy_kind_gets_options_shards_merge_compare_and_baselines(
    harness: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert harness("run", "--help") == 0
    help_text = capsys.readouterr().out
    assert "--toy-bonus" in help_text
    assert "Toy items" in help_text
    assert "toy:eight" in help_text

    assert harness("embed", "--help") == 0  # an option that changes the texts is `harness embed`'s too
    help_text = capsys.readouterr().out
    assert "--toy-words" in help_text
    assert "--toy-bonus" not in help_text
    assert harness("embed", "--dataset", "builtin", "--toy-words", "hello") == 2
    assert "--dataset embeds a dataset: --suite, --fields and --toy-words do not apply" in capsys.readouterr().err

    assert harness("run", "-m", "bm25", "--toy-bonus", "0.5") == 2  # the builtin belief suite takes no bonus
    assert (
        "--toy-bonus does not apply to belief suites (an option of toy items: --suite toy:...)"
        in capsys.readouterr().err
    )
    assert harness("run", "-s", "toy:eight", "-m", "bm25", "--trec") == 2
    assert "--trec does not apply to toy items" in capsys.readouterr().err

    run = ["run", "-s", "toy:eight", "-m", "bm25", "-m", "hybrid", "--toy-bonus", "0.25"]
    assert harness(*run, "--out", "whole") == 0
    whole = json.loads((tmp_path / "whole" / "toy-embedded-latest.json").read_text())
    assert (whole["kind"], whole["suite"], whole["origin"]["options"]) == (
        "toy",
        "toy:eight",
        {"bonus": 0.25, "words": ""},
    )
    assert len(whole["results"]) == 16

    for index in (1, 2, 3):
        assert harness(*run, "--shard", f"{index}/3", "--out", "shards") == 0
    shards = sorted((tmp_path / "shards").glob("toy-embedded-shard*of3-2*.json"))
    assert len(shards) == 3
    assert not list((tmp_path / "shards").glob("*latest*"))
    assert harness("merge", *map(str, shards), "--out", "merged") == 0
    merged = json.loads((tmp_path / "merged" / "toy-embedded-latest.json").read_text())
    assert _without_timing(merged) == _without_timing(whole)

    capsys.readouterr()
    compared = [str(tmp_path / f / "toy-embedded-latest.json") for f in ("whole", "merged")]
    assert harness("compare", *compared, "--out", "compared") == 0
    assert "toy toy:eight hybrid:" in capsys.readouterr().out

    baselines = ["--baseline-dir", str(tmp_path / "baselines")]
    assert harness(*run, *baselines, "--freeze-baseline") == 0
    assert harness(*run, *baselines, "--check-baseline", "--shard", "2/3") == 0
    lower = ["run", "-s", "toy:eight", "-m", "bm25", "-m", "hybrid", "--toy-bonus", "0.0"]
    capsys.readouterr()
    assert harness(*lower, *baselines, "--check-baseline") == 1
    assert "regressed  case item-0 score: 0.2500 -> 0.0000" in capsys.readouterr().out


ITEM_TESTS = """
from harness.pytest_plugin.items import ItemParam


def test_item(harness_item: ItemParam, harness_check) -> None:
    harness_check(harness_item)
"""
"""What a user's test file holds (as `tests/test_suite_cases.py`)."""


def test_a_toy_kind_gets_pytest_items_and_the_pytest_baseline_gate_from_its_spec(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kinds, "SPECS", (*kinds.SPECS, TOY))
    monkeypatch.delenv("HARNESS_FREEZE", raising=False)
    pytester.makepyfile(test_items=ITEM_TESTS)
    common = ["-p", "no:cacheprovider", "-p", "no:popoto", "--harness-backend", "embedded"]  # popoto: as our ini

    collected = pytester.runpytest_inprocess(*common, "-o", "harness_collect=builtin", "--collect-only", "-q")
    listed = collected.stdout.str()
    assert re.findall(r"test_item\[(toy-[^\]]+)\]", listed) == [f"toy-embedded-bm25-{i}" for i in ITEMS]
    assert "test_item[beliefs-embedded-bm25-" in listed  # its built-in suite is collected beside the others

    toy = [*common, "--harness-suite", "toy:eight", "--harness-baseline-dir", str(pytester.path / "baselines")]
    ran = pytester.runpytest_inprocess(*toy, "--harness-mode", "bm25", "-rf")
    ran.assert_outcomes(passed=7, failed=1)
    failed = "FAILED test_items.py::test_item[[]toy-embedded-bm25-item-0[]] - *"
    ran.stdout.fnmatch_lines(["item-0 scored 0.00, under 0.1", failed])  # the judge's reasons, in its item

    module = sys.modules[__name__]
    monkeypatch.setattr(module, "PASS_AT", 0.0)  # every item passes: the gate alone decides below
    monkeypatch.setenv("HARNESS_FREEZE", "1")
    frozen = pytester.runpytest_inprocess(*toy, "--harness-mode", "hybrid")
    frozen.assert_outcomes(passed=8)
    assert "baseline toy:eight / embedded / hybrid: frozen in" in frozen.stdout.str()
    monkeypatch.delenv("HARNESS_FREEZE")

    checked = pytester.runpytest_inprocess(*toy, "--harness-mode", "hybrid", "--harness-check-baseline")
    assert checked.ret == 0, checked.stdout.str()
    assert "baseline toy:eight / embedded / hybrid: passed" in checked.stdout.str()

    monkeypatch.setattr(module, "ITEMS", tuple(reversed(ITEMS)))  # item-7 now scores 0
    regressed = pytester.runpytest_inprocess(*toy, "--harness-mode", "hybrid", "--harness-check-baseline")
    assert regressed.ret == pytest.ExitCode.TESTS_FAILED
    assert "regressed  case item-7 score: 0.7000 -> 0.0000" in regressed.stdout.str()
    assert "baseline toy:eight / embedded / hybrid: FAILED" in regressed.stdout.str()


def test_a_toy_kind_gets_page_rows_and_a_leaderboard_column_from_its_spec(harness: Any, tmp_path: Path) -> None:
    assert harness("run", "-s", "toy:eight", "-m", "bm25", "--out", "page") == 0
    report = tmp_path / "page" / "toy-embedded-latest.json"
    document = json.loads(report.read_text())

    listing, listed = rows(document)
    assert listing is not None
    assert (listing.kind, listing.key, listing.unit, listing.rule) == (
        "toy",
        "results",
        "items",
        "the item scored under the toy's pass mark",
    )
    assert [(r.id, r.category, r.title, r.mode, r.backend) for r in listed[:2]] == [
        ("item-0", "tenth 0", "the toy titled item-0", "bm25", "embedded"),
        ("item-1", "tenth 1", "the toy titled item-1", "bm25", "embedded"),
    ]
    assert [r.verdict for r in listed] == [FAIL] + [PASS] * 7  # item-0 scores 0, under PASS_AT: its judge fails it
    page = report.with_suffix(".html").read_text()
    assert "the toy titled item-7" in page
    assert "the item scored under the toy&#39;s pass mark" in page

    assert harness("leaderboard", str(report), "--out", "board") == 0
    board = json.loads((tmp_path / "board" / "leaderboard-latest.json").read_text())
    # a kind that records no rules is under the harness's own
    assert board["columns"] == [
        {
            "kind": "toy",
            "suite": "toy:eight",
            "rules": "harness",
            "key": "toy:eight · harness",
            "measures": ["passed"],
            "public": None,
        }
    ]
    [entry] = board["backends"]["embedded"]
    assert (entry["system"], entry["mode"], entry["cells"]) == (
        "reference",
        "bm25",
        {"toy:eight · harness": {"passed": 0.875}},
    )
