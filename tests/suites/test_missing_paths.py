"""A suite path that is not there: a relative one is looked up from the current folder, and the
one line says so, with the absolute path it tried (exit 2); an absolute one is named as given."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.cli import main


def _error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cwd: Path, *args: str) -> str:
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(sys, "argv", ["harness", *args])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err.strip()


@pytest.mark.parametrize(
    ("spec", "relative"),
    [
        ("suites/mine", "suites/mine"),
        ("tenure:checkouts/tenure", "checkouts/tenure"),
        ("mnemonic:scenarios.json", "scenarios.json"),
        ("acervo:turns", "turns"),
        ("nano-brain:bench/dataset.json", "bench/dataset.json"),
    ],
)
def test_a_missing_relative_suite_path_names_the_folder_it_was_looked_up_from(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, spec: str, relative: str
) -> None:
    line = _error(monkeypatch, capsys, tmp_path, "run", "-s", spec, "-m", "bm25", "--out", str(tmp_path / "r"))
    assert line.startswith(f"harness: error: {relative}: "), line
    assert line.endswith(f"; looked for {tmp_path / relative}, relative to the current folder {tmp_path}"), line


def test_validate_says_it_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = _error(monkeypatch, capsys, tmp_path, "cases", "validate", "mine")
    assert line == (
        f"harness: error: mine: no such suite folder; looked for {tmp_path / 'mine'}, "
        f"relative to the current folder {tmp_path}"
    )


def test_an_absolute_path_is_named_as_given(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = _error(monkeypatch, capsys, tmp_path, "cases", "validate", str(tmp_path / "mine"))
    assert line == f"harness: error: {tmp_path / 'mine'}: no such suite folder"
