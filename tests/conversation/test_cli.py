"""`harness run --suite acervo:DIR` and `conversation:...` through `harness.cli.main` in process: the run
prints its scorecard and writes its reports; a bad suite is one stderr line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Main
from tests.faults.helpers import one_line

FOLDER = Path(__file__).parent / "acervo"


def test_acervo_folder_end_to_end(harness_main: Main, tmp_path: Path) -> None:
    out = tmp_path / "reports"
    done = harness_main(
        "run", "--suite", f"acervo:{FOLDER}", "-m", "bm25", "--fail-under", "1", "--out", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "conversation turns" in done.stdout
    assert "7/7" in done.stdout
    report = json.loads((out / "conversation-embedded-latest.json").read_text())
    assert report["summary"]["bm25"]["passed"] == 7
    (chart,) = out.glob("conversation-embedded-2*-efficiency.png")
    assert chart.read_bytes().startswith(b"\x89PNG"), "the efficiency chart is written beside the report"


@pytest.mark.parametrize(
    ("suite", "message"),
    [
        ("acervo:", "--suite acervo:DIR: name the folder of turn files and fixture projects"),
        ("conversation:other", "conversation:other: no such built-in conversation suite (conversation:builtin"),
        ("acervo:/no/such/folder", "/no/such/folder: not a folder of Acervo turn files (*.yaml)"),
    ],
)
def test_bad_suite_is_one_line_exit_2(harness_main: Main, tmp_path: Path, suite: str, message: str) -> None:
    done = harness_main("run", "--suite", suite, "-m", "bm25", "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert done.returncode == 2
    assert message in one_line(done.stderr)


def test_malformed_turn_file_is_one_line_exit_2(harness_main: Main, tmp_path: Path) -> None:
    (tmp_path / "projects" / "p").mkdir(parents=True)
    (tmp_path / "s.yaml").write_text(
        "name: s\nproject_fixture: p\nturns:\n  - turn: 1\n    user: hi\n    category: DRIFT\n"
    )
    done = harness_main(
        "run", "--suite", f"acervo:{tmp_path}", "-m", "bm25", "--out", str(tmp_path / "r"), cwd=tmp_path
    )
    assert done.returncode == 2
    assert "s.yaml: turns[0].category" in one_line(done.stderr)


def test_turn_rules_option(harness_main: Main, tmp_path: Path) -> None:
    out = tmp_path / "reports"
    done = harness_main("run", "--suite", f"acervo:{FOLDER}", "-m", "bm25", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "conversation-embedded-latest.json").read_text())["turn_rules"]["name"] == "acervo-v0.5"
    done = harness_main(
        "run", "--suite", f"acervo:{FOLDER}", "-m", "bm25", "--turn-rules", "strict", "--out", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "conversation-embedded-latest.json").read_text())["turn_rules"]["name"] == "strict"
    refused = harness_main("run", "--suite", "builtin", "--turn-rules", "strict", "--out", str(out), cwd=tmp_path)
    assert refused.returncode == 2
    assert "--turn-rules does not apply to belief" in one_line(refused.stderr)
