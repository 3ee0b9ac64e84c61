"""A Markdown table cell never breaks its table: `|` is escaped and a line break becomes `<br>`,
in every report (code-task errors were written raw into their table)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from harness.pipeline.code_answer import CodeAnswerer
from harness.reports.tables import cell, row


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table row, `\\|` kept inside its cell."""
    import re

    return re.split(r"(?<!\\)\|", line.strip())[1:-1]


def test_cells_escape_pipes_and_line_breaks() -> None:
    assert cell("a|b") == "a\\|b"
    assert cell("one\ntwo\r\nthree") == "one<br>two<br>three"
    assert cell("C:\\path|x") == "C:\\\\path\\|x"
    assert _cells(row(["a|b", "c\nd", 3])) == [" a\\|b ", " c<br>d ", " 3 "]


def test_a_code_task_error_with_a_pipe_and_a_newline_stays_in_its_cell(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def answer(*_: object) -> None:
        raise RuntimeError("index | broken\nsecond line")

    monkeypatch.setattr(CodeAnswerer, "answer", answer)
    code, _, err = cli("run", "-s", "code-tasks:builtin", "-m", "bm25", "--out", str(tmp_path / "out"))
    assert code == 1, err
    (report,) = (tmp_path / "out").glob("code-tasks-*-latest.md")
    lines = report.read_text().splitlines()
    header = lines.index("| task | category | fixed | recall | search | +identifiers | +graph | baseline | missed |")
    rows = list(itertools.takewhile(lambda line: line.startswith("|"), lines[header + 2 :]))  # the task table alone
    assert rows, "the task table has rows"
    for line in rows:
        assert len(_cells(line)) == 9, line
        assert "RuntimeError: index \\| broken second line" in line, line
