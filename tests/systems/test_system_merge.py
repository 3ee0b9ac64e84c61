"""`harness merge` of shards run on a system under test (`--system http:URL`): lifecycle and
conversation shards merge into the report the unsharded run on that system writes, the system
kept; shards of another system, or of the same URL serving another system, are refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.reports.pages import harness
from tests.reports.test_every_kind import without_timing
from tests.systems.memory_server import Store, serving

CAPABILITIES = ("timestamps", "clock", "access", "consolidation", "budget")
"""What lifecycle scenarios and conversation turns need of a system."""
SUITES = ("-s", "lifecycle:builtin", "-s", "conversation:builtin", "-m", "bm25")
ITEMS = {"lifecycle": "results", "conversation": "turns"}
"""Per kind: where its report lists items."""


@dataclass(frozen=True)
class Runs:
    root: Path
    url: str
    store: Store
    whole_code: int

    def whole(self, kind: str) -> dict:
        (path,) = [p for p in (self.root / "whole").glob(f"{kind}-*.json") if "latest" not in p.name]
        return json.loads(path.read_text())

    def shards(self, kind: str) -> list[Path]:
        return sorted((self.root / "shards").glob(f"{kind}-embedded-http-*-shard*of2-2*.json"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """Both kinds on one service: the unsharded run, and shards 1/2 and 2/2 (the service serves
    for the whole module, so a test can run another shard on the same URL)."""
    root = tmp_path_factory.mktemp("system-merge")
    store = Store(extended=True, capabilities=CAPABILITIES)
    with pytest.MonkeyPatch.context() as patch, serving(store) as url:
        patch.setenv("HARNESS_STATE_DIR", str(root / "state"))
        run = ["run", "--system", f"http:{url}", *SUITES]
        whole = harness(root, *run, "--out", "whole")
        for index in (1, 2):
            assert harness(root, *run, "--shard", f"{index}/2", "--out", "shards") == whole
        yield Runs(root, url, store, whole)


def _verdicts(report: dict, kind: str) -> list[tuple[object, ...]]:
    """Each item's verdict as the report gives it (a scenario's grade, a turn's pass), in report order."""
    if kind == "lifecycle":
        return [(r["scenario"], r["mode"], r["grade"], r["error"]) for r in report["results"]]
    return [(t["scenario"], t["turn"], t["mode"], t["passed"], t["error"]) for t in report["turns"]]


@pytest.mark.parametrize("kind", sorted(ITEMS))
def test_shards_merge_into_the_unsharded_run_of_the_system(
    runs: Runs, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = runs.whole(kind)
    assert whole["not_applicable"] is None  # the service declares what the kind needs: it ran
    shards = runs.shards(kind)
    assert len(shards) == 2
    parts = [json.loads(p.read_text()) for p in shards]
    key = ITEMS[kind]
    assert all(p[key] for p in parts), "both shards hold items"
    assert sum(len(p[key]) for p in parts) == len(whole[key])
    capsys.readouterr()
    assert harness(runs.root, "merge", *map(str, reversed(shards)), "--out", f"merged-{kind}") == runs.whole_code
    scorecard = " ".join(capsys.readouterr().out.split())
    system = f"http:{runs.url}"
    assert f"system {system}" in scorecard, "the scorecard's title names the system"
    (path,) = (runs.root / f"merged-{kind}").glob(f"{kind}-embedded-http-*-latest.json")
    merged = json.loads(path.read_text())
    assert merged["system"] == whole["system"]
    assert merged["system"]["name"] == system
    assert _verdicts(merged, kind) == _verdicts(whole, kind)
    assert merged["scores"] == whole["scores"]
    assert merged["summary"] == whole["summary"]
    # everything else too (the lifecycle report's warning that a system's memory states are not observed)
    assert json.dumps(without_timing(merged), sort_keys=True) == json.dumps(without_timing(whole), sort_keys=True)


def _refused(runs: Runs, other: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """`harness merge` of the run's shard 1/2 with `other`: exit 2, one line on stderr, nothing written."""
    (first, _) = runs.shards("lifecycle")
    capsys.readouterr()
    assert harness(runs.root, "merge", str(first), str(other), "--out", "refused") == 2
    stderr = capsys.readouterr().err
    assert not (runs.root / "refused").exists() or not list((runs.root / "refused").iterdir())
    assert "Traceback" not in stderr
    (line,) = stderr.strip().splitlines()
    assert line.startswith("harness: ")
    return line


def _other_shard(root: Path, url: str) -> Path:
    out = root / "other"
    assert harness(root, "run", "--system", f"http:{url}", "-s", "lifecycle:builtin", "-m", "bm25", "--shard", "2/2",
                   "--out", str(out)) in (0, 1)  # fmt: skip
    (path,) = out.glob("lifecycle-embedded-http-*-shard2of2-2*.json")
    return path


def test_shards_of_another_system_are_refused(
    runs: Runs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    with serving(Store(extended=True, capabilities=CAPABILITIES)) as url:
        other = _other_shard(tmp_path, url)
    assert "in system (name)" in _refused(runs, other, capsys)


@pytest.mark.parametrize(
    ("field", "value", "differing"),
    [
        ("version", "2.0", "version"),
        ("capabilities", ("timestamps", "clock", "access", "budget"), "capabilities"),  # no consolidation
    ],
)
def test_the_same_url_serving_another_system_is_refused(
    runs: Runs,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value: object,
    differing: str,
) -> None:
    """The service at the run's URL was replaced between the shards (another version, or one
    without consolidation, on which lifecycle scenarios are not applicable): its shard is of
    another system, whose results cannot be merged with the first's as one run's."""
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(runs.store, field, value)
    other = _other_shard(tmp_path, runs.url)
    line = _refused(runs, other, capsys)
    assert f"in system ({differing})" in line
