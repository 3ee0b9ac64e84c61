"""`harness merge` gives the verdict the unsharded run would have (issue 21): a shard whose backend
died merged with exit 0 into a `-latest` report, an interrupted one could not be merged at all, and
an emptied shard or one whose metrics were edited by hand was accepted as is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.backends.embedded import EmbeddedIndex
from harness.errors import Interrupted
from harness.reports.document import sealed
from tests.conftest import main_exit_code
from tests.faults.helpers import reports, write_suite


def _shards(cli, tmp_path: Path, cases: int = 6) -> list[Path]:
    """The two shard reports of a bm25 run of a suite written to `tmp_path / "suite"`."""
    suite = write_suite(tmp_path / "suite", cases, memories=3)  # s-<i> names item i % 3
    for index in (1, 2):
        cli("run", "-m", "bm25", "-s", str(suite), "--shard", f"{index}/2", "--out", str(tmp_path / "shards"))
    found = reports(tmp_path / "shards", "run-embedded-shard*of2-2*.json")
    assert len(found) == 2
    return found


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """`_shards` of a run without faults, made once for the tests that merge them unchanged or
    edit copies of them (a run and its report page cost more than the merges they test)."""
    return _shards(main_exit_code, tmp_path_factory.mktemp("shards"))


def _merge(cli, tmp_path: Path, *shards: Path) -> tuple[int, str]:
    code, _, stderr = cli("merge", *map(str, shards), "--out", str(tmp_path / "merged"))
    return code, stderr


def test_a_shard_that_lost_its_backend_merges_as_a_failed_run(cli, tmp_path: Path, monkeypatch) -> None:
    lexical = EmbeddedIndex.lexical

    def lost(self, terms, filters, limit):
        if "1" in terms:  # the queries naming item 1: s-1 and s-4, wherever they are sharded
            raise ConnectionResetError("connection reset by peer")
        return lexical(self, terms, filters, limit)

    monkeypatch.setattr(EmbeddedIndex, "lexical", lost)
    shards = _shards(cli, tmp_path)
    code, stderr = _merge(cli, tmp_path, *shards)
    assert code == 3, stderr
    assert "harness: merge: 2 of 6 results errored (1 distinct)" in stderr
    assert stderr.rstrip().endswith("; the backend was lost mid-run"), stderr
    assert "Traceback" not in stderr
    assert not reports(tmp_path / "merged", "*latest*"), "a run on a lost backend is never -latest"
    (merged,) = reports(tmp_path / "merged", "run-embedded-2*.json")
    assert sum(c["backend_lost"] for c in json.loads(merged.read_text())["cases"]) == 2


def test_an_interrupted_shard_merges_as_an_incomplete_run(cli, shards: list[Path], tmp_path: Path, monkeypatch) -> None:
    lexical = EmbeddedIndex.lexical
    calls = []

    def interrupted(self, terms, filters, limit):
        calls.append(terms)
        if len(calls) == 3:
            raise Interrupted("SIGINT", 130)
        return lexical(self, terms, filters, limit)

    monkeypatch.setattr(EmbeddedIndex, "lexical", interrupted)
    suite = shards[0].parents[1] / "suite"  # the one the shards ran (`_shards`)
    code, _, _ = cli("run", "-m", "bm25", "-s", str(suite), "--shard", "1/2", "--out", str(tmp_path / "cut"))
    assert code == 130
    (cut,) = reports(tmp_path / "cut", "run-embedded-shard1of2-incomplete-*.json")  # 2 of its 5 cases ran
    code, stderr = _merge(cli, tmp_path, cut, shards[1])
    assert code == 3, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines == ["harness: merge: incomplete: shard 1/2 interrupted by SIGINT after 2 of 5 cases; "
                     "rerun that shard and merge again"], stderr  # fmt: skip
    assert not reports(tmp_path / "merged", "*latest*")
    (merged,) = reports(tmp_path / "merged", "run-embedded-incomplete-*.json")
    document = json.loads(merged.read_text())
    assert document["incomplete"] is True
    assert document["incomplete_reason"] == "shard 1/2 interrupted by SIGINT after 2 of 5 cases"
    assert "INCOMPLETE" in merged.with_suffix(".md").read_text()


def _edited(shard: Path, target: Path, change, seal: bool = False) -> Path:
    document = json.loads(shard.read_text())
    change(document)
    target.write_text(json.dumps(sealed(document) if seal else document), encoding="utf-8")
    return target


@pytest.mark.parametrize(
    ("what", "change", "seal", "message"),
    [
        ("emptied", lambda d: d.update(cases=[]), False, "edited since the harness wrote it"),
        (
            "a metric edited",
            lambda d: d["scores"]["bm25"]["overall"].update(mrr=0.5),
            False,
            "edited since the harness",
        ),
        ("no checksum", lambda d: d.pop("checksum"), False, "no checksum"),
        (
            "a metric edited, sealed again",
            lambda d: d["scores"]["bm25"]["overall"].update(mrr=0.5),
            True,
            "disagree with",
        ),
        ("emptied, sealed again", lambda d: d.update(cases=[]), True, "disagree with its own per-item rows"),
    ],
)
def test_an_edited_or_emptied_shard_is_refused(
    cli, shards: list[Path], tmp_path: Path, what: str, change, seal: bool, message: str
) -> None:
    first, second = shards
    assert json.loads(second.read_text())["cases"], "the shard held cases before it was edited"
    code, stderr = _merge(cli, tmp_path, first, _edited(second, tmp_path / "edited.json", change, seal))
    assert code == 2, (what, stderr)
    (line,) = [line for line in stderr.splitlines() if line.strip()]
    assert line.startswith(f"harness: error: {tmp_path / 'edited.json'}: "), line
    assert message in line, line
    assert not (tmp_path / "merged").exists()
